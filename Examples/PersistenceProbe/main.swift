// A client that writes to its cache file until it is killed: the persistence crash test runs
// it as a child process and sends it SIGKILL in the middle of writing.
//
//     PersistenceProbe <cache file> [channels]
//
// It runs an embedded server, connects "alice" with `.sqlite(file)`, creates the channels and
// then sends messages to them round-robin forever, printing "sent <n>" after each. Every
// message is an event that changes a channel and adds a message: a file that holds a
// consistent state holds, for each channel, the messages up to the channel's `lastSequence`
// and none after.
import ChatServer
import Foundation
import LiveChannels

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: PersistenceProbe <cache file> [channels]\n".utf8))
    exit(2)
}
let url = URL(fileURLWithPath: arguments[1])
let channelCount = arguments.count >= 3 ? Int(arguments[2]) ?? 4 : 4
/// Writes a line to standard output at once (unbuffered: the parent reads it while we run).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let server = ChatServer()
let client = ChatClient(
    transport: server.connection(userId: "alice", deviceId: "probe"), persistence: .sqlite(url))
do {
    try await client.connect()
    let channels = ChannelRepository(client: client)
    for index in 0..<channelCount {
        let builder = CommunityChannelBuilder()
        builder.setId("probe-\(index)")
        _ = try await channels.createChannel(with: builder)
    }
    let messages = MessageRepository(client: client)
    var sent = 0
    while true {
        _ = try await messages.sendMessage(
            channelId: "probe-\(sent % channelCount)", text: "message \(sent)", mentionedUserIds: [])
        sent += 1
        say("sent \(sent)")
    }
} catch {
    say("failed: \(error)")
    exit(1)
}
