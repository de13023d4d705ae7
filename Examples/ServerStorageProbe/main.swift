// A server writing to its store on disk until killed: the storage crash test
// (`StorageCrashTests`) kills it with SIGKILL at many points and checks that every change it
// acknowledged is in the file.
//
// Usage: ServerStorageProbe PATH [CONCURRENCY]
// Prints `ready`, then `ack <messageId>` for each message whose send returned (its change is
// committed), then `failed <error>` if anything fails.
import ChatAPI
import ChatServer
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: ServerStorageProbe PATH [CONCURRENCY]\n".utf8))
    exit(2)
}
let concurrency = arguments.count > 2 ? Int(arguments[2]) ?? 8 : 8

func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

do {
    let server = try ChatServer(
        configuration: ServerConfiguration(messagesPerChannel: 50), storage: .sqlite(URL(fileURLWithPath: arguments[1]))
    )
    for number in 0..<3 where server.channel("room-\(number)") == nil {
        try await server.createChannel(type: .community, channelId: "room-\(number)", userIds: ["ann", "ben"])
    }
    say("ready")
    try await withThrowingTaskGroup(of: Void.self) { group in
        for worker in 0..<concurrency {
            group.addTask {
                var count = 0
                while true {
                    let channelId = "room-\((worker + count) % 3)"
                    let message = try await server.sendMessage(
                        as: worker % 2 == 0 ? "ann" : "ben", channelId: channelId, text: "w\(worker) n\(count)")
                    say("ack \(message.messageId)")
                    if count % 25 == 0 {
                        try await server.updateChannel(
                            ChannelChanges(channelId: channelId, displayName: "w\(worker) \(count)"))
                    }
                    count += 1
                }
            }
        }
        try await group.waitForAll()
    }
} catch {
    say("failed \(error)")
    exit(1)
}
