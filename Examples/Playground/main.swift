// Playground: a chat in the terminal. `swift run Playground` starts the embedded server with a
// few users; you act as any of them while one pane per user shows that user's own live channel
// list (their own ChatClient), with unread counts and who is typing. Rows that changed since the
// last screen are highlighted.
//
// Standard input is read line by line. On a terminal the screen is redrawn as changes arrive
// (ANSI escapes, no curses). When stdin is not a terminal (a script, a test), each command is
// echoed and followed by the panes, with changed rows marked `*`; `--color` keeps the ANSI
// highlighting there too.
import ChatServer
import Foundation
import LiveChannels
import TerminalChat

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let interactive = isatty(STDIN_FILENO) != 0 && isatty(STDOUT_FILENO) != 0
let color = interactive || CommandLine.arguments.contains("--color")
let userIds = ["alice", "bob", "carol"]

let server = ChatServer()
for id in userIds { try await server.registerUser(id: id, displayName: id.capitalized) }
let playground = Playground(userIds: userIds, interactive: interactive, color: color) {
    server.connection(userId: $0, deviceId: "terminal")
}
try await playground.start()
await playground.runCommandsFromStandardInput()
