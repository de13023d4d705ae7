import ChatServer
import LiveChannels

let server = ChatServer()                                   // in memory
try await server.registerUser(id: "bob", displayName: "Bob")  // users exist once registered or connected
let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
try await client.connect()

// Create a channel with a builder; observe it with a token.
let repository = ChannelRepository(client: client)
let builder = CommunityChannelBuilder()
builder.setId("ops"); builder.setUserIds(["bob"]); builder.setDisplayName("Ops")
builder.setTags(["ch-comm"]); builder.setMetadata(["sdk_type": "ios"])
let channelObject = repository.createChannel().community(with: builder)
let token = channelObject.observe { channelObject, error in      // main actor by default
    print(channelObject.snapshot?.displayName ?? "…", error.map { "\($0)" } ?? "")
}
// Wait for the answer: the sequence ends if the creation fails (`dataStatus == .error`).
for await channel in channelObject.values where channel != nil { break }
if let error = channelObject.error { throw error }           // e.g. "unknown user 'bob'"

// A live list: Amity query builders, or Stream-style filters and sorts.
let mine = repository.getChannels()
    .communityType(with: CommunityChannelQueryBuilder(filter: .userIsMember)).query()
let query = ChannelListQuery(
    filter: .and([.containMembers(userIds: ["alice"]), .equal("state", to: "LA")]),
    sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 20)
let list = repository.getChannels(query: query)
let listToken = list.observe { collection, change, error in
    guard let change else { return /* first call: reloadData() */ }
    // performBatchUpdates: change.deletions / .insertions / .moves, then reconfigure
    // change.modificationsInNew and the moves marked isModified.
    print(collection.count, change.insertions, error.map { "\($0)" } ?? "")
}
list.nextPage()

for await update in mine.updates {                          // snapshot + change
    print(update.snapshots.count, update.change as Any)
    if update.loadingStatus == .loaded { break }             // leaving the loop ends it
}

// Update, unread counts, reading.
let updater = ChannelUpdateBuilder(channelId: "ops", client: client)
updater.setMetadata(["hello": "world"])
_ = try await repository.updateChannel(with: updater)
let total: LiveObject<Int> = repository.getTotalUnreadCount()
// `startReading()` also has a fire-and-forget form, for synchronous code. In top-level code
// (a main.swift, a script) Swift 6.3 picks that form whatever is written, so there the async
// form is called from an async function; inside any async function it is the line as written.
func startReading(_ channelId: String) async throws {
    try await ChannelParticipation(client: client, channelId: channelId).startReading()
}
try await startReading("ops")
_ = try await MessageRepository(client: client).sendMessage(channelId: "ops", text: "hi", mentionedUserIds: [])
print(total.snapshot ?? 0, channelObject.snapshot?.metadata["hello"] ?? "")   // 0 "world"

token.invalidate(); listToken.invalidate()
await client.disconnect()
