import Foundation
import Testing
import TerminalChat

/// Runs an executable product built next to the test bundle (`swift build --build-tests` builds
/// every product), feeding `input` on its standard input; returns its exit status and output.
func runExample(_ name: String, input: String = "", arguments: [String] = []) throws -> (status: Int32, output: String)
{
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [
        directory.appendingPathComponent(name),
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name),
        Bundle.main.bundleURL.appendingPathComponent(name),
    ]
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw ExampleMissing(name: name, searched: candidates.map(\.path))
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

struct ExampleMissing: Error, CustomStringConvertible {
    var name: String
    var searched: [String]
    var description: String {
        "executable '\(name)' not built (run `swift build --build-tests`); looked in \(searched)"
    }
}

@Suite(.timeLimit(.minutes(1))) struct TopLevelExampleTests {
    /// The top-level-code example compiles with warnings as errors (its target's settings) and
    /// runs: the async forms are called, errors are thrown, tokens are kept.
    @Test func topLevelExampleRuns() throws {
        let (status, output) = try runExample("TopLevel")
        #expect(status == 0, "\(output)")
        #expect(output.contains("created ops"))
        #expect(output.contains("unread while reading: 0"))
        #expect(output.contains("reading 'nowhere' failed: Not found"))
        #expect(output.hasSuffix("done\n"))
    }
}

/// The guided examples run to the end and tell their stories.
@Suite(.timeLimit(.minutes(1))) struct GuidedExampleTests {
    /// `swift run QuickStart`: the core tour and the seed's channel story.
    @Test func quickStartRuns() throws {
        let (status, output) = try runExample("QuickStart")
        #expect(status == 0, "\(output)")
        #expect(output.contains("Bob left: his list now has 0 channels."))
        #expect(output.hasSuffix("Goodbye.\n"))
        // Words a person reads: "1 member", and no line printed twice in a row unchanged.
        #expect(output.contains("Ops Room, 1 member, unread 0") && !output.contains("1 members"), "\(output)")
        let lines = output.split(separator: "\n")
        let repeated = zip(lines, lines.dropFirst()).filter { $0 == $1 }.map(\.0)
        #expect(repeated.isEmpty, "printed again unchanged: \(repeated)")
        let alicesLines = lines.filter { $0.hasPrefix("  [Alice's ops]") }
        #expect(alicesLines.count == Set(alicesLines).count, "\(alicesLines)")
    }

    /// `swift run StreamStyle`: the Stream seeds' flows (channel list with a delegate, typing
    /// indicator, member list, the cookbook's new-chat view model) against the embedded server.
    @Test func streamStyleRuns() throws {
        let (status, output) = try runExample("StreamStyle")
        #expect(status == 0, "\(output)")
        #expect(output.contains("insert general at row 0"))
        #expect(output.contains("typing: Bob is typing…"))
        #expect(output.contains("member event: added carol"))
        #expect(output.contains("search 'bo': [\"Bob\", \"Bruno Böhm\"]"))
        #expect(output.contains("opened again: true"))
        #expect(output.hasSuffix("done\n"))
    }
}

/// The terminal playground, driven by a script on its standard input (not a terminal: each
/// command is echoed, then every user's pane, rows that changed marked `*`).
@Suite(.timeLimit(.minutes(1))) struct PlaygroundTests {
    @Test func scriptedSessionShowsEachUsersLiveChannelList() throws {
        let script = """
            as bob
            send general hello alice
            as alice
            type general
            as carol
            create lab alice bob
            rename lab The Lab
            ban lab bob
            as alice
            read general
            leave lab
            open general
            offline
            send general from the tunnel
            as bob
            send general are you there
            as alice
            online
            as carol
            join nowhere
            bogus
            help
            quit
            """
        let (status, output) = try runExample("Playground", input: script + "\n")
        #expect(status == 0, "\(output)")
        let screens = output.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        func screen(after command: String) -> String {
            screens.first { $0.hasPrefix(command + "\n") } ?? "(no screen after '\(command)')"
        }
        // Every user starts in #general, created by alice at start.
        #expect(screens.first?.contains("#general General") == true)
        // Bob's message: unread 1 for alice and carol, highlighted; not for bob.
        let afterSend = screen(after: "bob> send general hello alice")
        #expect(afterSend.contains("*   #general General (1)"), "\(afterSend)")
        #expect(afterSend.contains("bob → #general: hello alice"))
        // Alice typing shows in the panes of the others.
        #expect(screen(after: "alice> type general").contains("✎alice"))
        // Carol's new channel appears in the lists of its members, renamed live.
        #expect(screen(after: "carol> create lab alice bob").contains("#lab Lab"))
        #expect(screen(after: "carol> rename lab The Lab").contains("#lab The Lab"))
        // Banned: #lab leaves bob's list (struck out once).
        let afterBan = screen(after: "carol> ban lab bob")
        #expect(afterBan.contains("✗ #lab The Lab") && afterBan.contains("carol banned bob in #lab"), "\(afterBan)")
        // Alice reads #general: her unread count goes.
        let afterRead = screen(after: "alice> read general")
        #expect(afterRead.contains("*   #general General ") && afterRead.contains("alice is reading #general"))
        // Alice leaves #lab: gone from her pane only.
        let afterLeave = screen(after: "alice> leave lab")
        #expect(afterLeave.contains("alice left #lab") && afterLeave.contains("✗ #lab The Lab"), "\(afterLeave)")
        // Offline, then online: alice catches up with what bob sent meanwhile, and what she
        // typed offline is kept ("sending…") and sent once she is online.
        #expect(screen(after: "alice> offline").contains("alice (offline)"))
        let typedOffline = screen(after: "alice> send general from the tunnel")
        #expect(typedOffline.contains("(sending… it goes once alice is online)"), "\(typedOffline)")
        #expect(typedOffline.contains("alice: from the tunnel  (sending…)"), "\(typedOffline)")
        let afterOnline = screen(after: "alice> online")
        #expect(afterOnline.contains("alice (online)"))
        #expect(afterOnline.contains("alice: from the tunnel") && !afterOnline.contains("(sending…)"), "\(afterOnline)")
        // Help names the users this playground acts as; errors read as words, not SDK advice.
        #expect(screen(after: "carol> help").contains("as <user>                 act as alice, bob or carol"))
        #expect(!output.contains("retry when the connection is back"))
        // Bob's message came while she was away (her own, sent after it, marks it read).
        #expect(afterOnline.contains("bob: are you there"), "\(afterOnline)")
        // Errors are shown, not fatal.
        #expect(screen(after: "carol> join nowhere").contains("! "))
        #expect(screen(after: "carol> bogus").contains("unknown command"))
        #expect(!output.contains("\u{1B}["))  // no ANSI when stdout is a pipe (without --color)
    }

    /// The playground is a chat: a live message pane, `@name` mentions, history, and a
    /// moderator of #general who can make others moderators.
    @Test func messagesMentionsHistoryAndModeration() throws {
        let script = """
            as bob
            send general hi @alice, look
            as alice
            history general
            mute general bob abc
            as bob
            send general not muted
            as carol
            ban general bob
            as alice
            promote general carol
            as carol
            mute general bob 30
            as alice
            mute general bob 99999999999
            mute general bob -1
            history general -5
            history general 1000
            history general 2
            as bob
            send general still here?
            as alice
            unban general carol
            demote general bob
            create team dave
            ban general bob
            unban general bob
            demote general carol
            push
            rename general 東京チャット 👩‍💻 team with a long name
            send general typed\u{1B}[D\u{1B}[D with arrows
            as carol
            leave general
            offline
            online
            show
            history general 1
            quit
            """
        let (status, output) = try runExample("Playground", input: script + "\n")
        #expect(status == 0, "\(output)")
        let screens = output.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        func screen(after command: String) -> String {
            screens.first { $0.hasPrefix(command + "\n") } ?? "(no screen after '\(command)')"
        }
        // #general opens at start; alice created it and moderates it.
        #expect(screens.first?.contains("alice moderates #general") == true, "\(screens.first ?? "")")
        // Bob's message reaches the others' message pane live; alice is mentioned (@).
        let afterSend = screen(after: "bob> send general hi @alice, look")
        #expect(
            afterSend.contains("── #general, as bob") && afterSend.contains("  bob: hi @alice, look"), "\(afterSend)")
        #expect(afterSend.contains("#general General (1 @)"), "alice's row shows the mention: \(afterSend)")
        let asAlice = screen(after: "bob> as alice")
        #expect(asAlice.contains("@ bob: hi @alice, look"), "\(asAlice)")
        #expect(screen(after: "alice> history general").contains("#general, the last 1:"))
        // Carol cannot moderate until alice promotes her.
        #expect(screen(after: "carol> ban general bob").contains("! not permitted: "))
        #expect(screen(after: "alice> promote general carol").contains("alice made carol a moderator of #general"))
        #expect(screen(after: "carol> mute general bob 30").contains("carol muted bob in #general for 30 s"))
        // A period past the maximum is refused before anything is sent, naming [secs] as help
        // does, and the session goes on.
        let huge = screen(after: "alice> mute general bob 99999999999")
        #expect(huge.contains("usage: mute <ch> <user> [secs] — [secs]: 99999999999 is out of range"), "\(huge)")
        #expect(screen(after: "alice> mute general bob -1").contains("alice muted bob in #general until unmuted"))
        #expect(screen(after: "bob> send general still here?").contains("! "), "a muted member cannot send")
        // A count out of range is a usage error, not a crash.
        #expect(
            screen(after: "alice> history general -5").contains("usage: history <ch> [n] — [n]: -5 is out of range"))
        #expect(screen(after: "alice> history general 1000").contains("give a whole number from 1 to 100"))
        #expect(screen(after: "alice> history general 2").contains("#general, the last 2:"), "two messages so far")
        // A typo never acts: `mute general bob abc` is refused, and bob can still send.
        let typo = screen(after: "alice> mute general bob abc")
        #expect(typo.contains("usage: mute <ch> <user> [secs] — [secs]: 'abc' is not a number of seconds"), "\(typo)")
        #expect(screen(after: "bob> send general not muted").contains("bob → #general: not muted"))
        // Said as it is: undoing what was never done changes nothing and says so; a refusal
        // names no field of the protocol.
        #expect(
            screen(after: "alice> unban general carol").contains("carol is not banned from #general; nothing changed"))
        #expect(screen(after: "alice> demote general bob").contains("bob is no moderator of #general; nothing changed"))
        let unknown = screen(after: "alice> create team dave")
        #expect(unknown.contains("! unknown user 'dave'") && !unknown.contains("userIds"), "\(unknown)")
        #expect(screen(after: "alice> unban general bob").contains("alice unbanned bob in #general"))
        #expect(screen(after: "alice> demote general carol").contains("alice made carol a member of #general again"))
        // `push` promises nothing the embedded server cannot do.
        let push = screen(after: "alice> push")
        #expect(push.contains("alice registered the push token") && push.contains("nothing is pushed here"), "\(push)")
        // Wide characters take two columns: the panes' separators stay in one column.
        let renamed = screen(after: "alice> rename general 東京チャット 👩‍💻 team with a long name")
        let rows = renamed.split(separator: "\n").filter { $0.contains("│") }
        let separators = Set(
            rows.map { row in
                TerminalColumns.of(row[..<row.firstIndex(of: "│")!])
            })
        #expect(rows.count >= 2 && separators.count == 1, "\(renamed)")
        #expect(renamed.contains("東京チャット"), "\(renamed)")
        // Cursor keys typed into a line are not part of the command, nor echoed.
        let arrows = screen(after: "alice> send general typed with arrows")
        #expect(arrows.contains("alice → #general: typed with arrows"), "\(screens.suffix(3))")
        // Reconnecting is no reason to rejoin a channel one left: only a #general made anew (a
        // server that started over) is opened again.
        #expect(!output.contains("started over"), "\(screens.suffix(4))")
        #expect(screen(after: "carol> history general 1").contains("! "), "carol is not back in #general")
    }

    @Test func colorFlagHighlightsWithANSI() throws {
        let (status, output) = try runExample(
            "Playground", input: "as bob\nsend general hi\nquit\n", arguments: ["--color"])
        #expect(status == 0)
        #expect(output.contains("\u{1B}[1;30;43m"))
    }
}

/// README's quick tour compiles as a `main.swift` in Swift 6 (top-level code, warnings as
/// errors) and runs: the `ReadmeTour` example is the tour, verbatim.
@Suite(.timeLimit(.minutes(1))) struct ReadmeTourTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theExampleIsTheReadmesTourVerbatim() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let example = try String(
            contentsOf: Self.root.appendingPathComponent("Examples/ReadmeTour/main.swift"), encoding: .utf8)
        let tour = try #require(readme.range(of: "## A quick tour"))
        let open = try #require(readme.range(of: "```swift\n", range: tour.upperBound..<readme.endIndex))
        let close = try #require(readme.range(of: "\n```\n", range: open.upperBound..<readme.endIndex))
        #expect(
            String(readme[open.upperBound...close.lowerBound]) == example,
            "copy README's first tour block into Examples/ReadmeTour/main.swift")
    }

    @Test func theTourRunsAsTopLevelCode() throws {
        let (status, output) = try runExample("ReadmeTour")
        #expect(status == 0, "\(output)")
        #expect(output.contains("0 \"world\""), "\(output)")
    }
}
