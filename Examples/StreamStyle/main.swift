// The Stream Chat seed snippets (channel list, one channel with its typing indicator, member
// list, and the cookbook's "new chat" view model) ported to LiveChannels' Stream-style
// controllers, run against the embedded server. Prints what each delegate hears; finishes by
// itself.
import ChatServer
import Foundation
import LiveChannels

let server = ChatServer()
for (id, name) in [("alice", "Alice"), ("bob", "Bob"), ("bruno", "Bruno Böhm"), ("carol", "Carol")] {
    try await server.registerUser(id: id, displayName: name)
}
let alice = ChatClient(transport: server.connection(userId: "alice", deviceId: "phone"))
let bob = ChatClient(transport: server.connection(userId: "bob", deviceId: "phone"))
try await alice.connect()
try await bob.connect()

print("== Channel list (seed 000) ==")
try await ChannelListScreen(client: alice, other: bob, server: server).run()

print("\n== One channel and its typing indicator (seed 001) ==")
try await ChannelScreen(client: alice, other: bob).run()

print("\n== Member list (seed 001) ==")
try await MemberListScreen(client: alice, other: bob, server: server).run()

print("\n== New chat (cookbook, seed 003) ==")
try await NewChatFlow(client: alice, other: bob).run()

await alice.disconnect()
await bob.disconnect()
print("\ndone")
