// TopLevel: the SDK from top-level code (a script, a `main.swift`), compiled with
// `-warnings-as-errors` and run by the test suite (ExamplesTests).
//
// Top-level code containing `await` is an asynchronous context, so the `async throws` forms are
// the ones to call. `participation.startReading()` has a fire-and-forget form too; Swift 6.3
// resolves the bare name to it in top-level code even when `try await` is written (its solver
// treats top-level code as synchronous), which silently dropped errors. That form is now
// `@available(*, noasync)`: writing `try await participation.startReading()` directly in
// top-level code is a compile error naming the fix, never a silent fire-and-forget. Inside any
// `async` function or closure, the same line resolves to the `async throws` form, as here.
import ChatServer
import LiveChannels

let server = ChatServer()
try await server.registerUser(id: "bob", displayName: "Bob")
let client = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
try await client.connect()

let repository = ChannelRepository(client: client)
let builder = CommunityChannelBuilder()
builder.setId("ops")
builder.setUserIds(["bob"])
let channel = try await repository.createChannel(with: builder)
print("created \(channel.channelId)")

let participation = ChannelParticipation(client: client, channelId: "ops")
func startReading(_ participation: ChannelParticipation) async throws {
    try await participation.startReading()  // the async throws form: errors are thrown
}
try await startReading(participation)
try await server.sendMessage(as: "bob", channelId: "ops", text: "hi")
await client.synchronize()
print("unread while reading: \(server.unreadCount(userId: "alice", channelId: "ops"))")

// Errors are thrown, not dropped: reading a channel that does not exist fails.
do {
    try await startReading(ChannelParticipation(client: client, channelId: "nowhere"))
    print("unexpected: no error")
} catch {
    print("reading 'nowhere' failed: \(error)")
}

// Tokens must be kept: `observe` returns a token whose unused result is a warning (an error
// here, with -warnings-as-errors).
let token = repository.getChannel("ops").observe(on: .synchronous) { object, _ in
    _ = object.snapshot?.displayName
}
token.invalidate()

await client.disconnect()
print("done")
