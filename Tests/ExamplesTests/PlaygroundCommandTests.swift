import Testing
import TerminalChat

/// The terminal chat reads every line before it acts: what it cannot read is refused, naming the
/// argument and why, and nothing runs (`mute general bob abc` used to mute bob for 60 s).
@Suite struct PlaygroundCommandTests {
    static let users = ["alice", "bob", "carol"]

    static func parse(_ line: String) throws(PlaygroundCommand.Refusal) -> PlaygroundCommand? {
        try PlaygroundCommand.parse(line, users: users)
    }

    @Test(arguments: [
        ("mute general bob abc", "usage: mute <ch> <user> [secs] — [secs]: 'abc' is not a number of seconds"),
        ("mute general bob 10 extra", "usage: mute <ch> <user> [secs] — 'extra' is one argument too many"),
        ("mute general bob 0", "usage: mute <ch> <user> [secs] — [secs]: 0 is out of range"),
        ("mute general bob -5", "usage: mute <ch> <user> [secs] — [secs]: -5 is out of range"),
        ("mute general bob 1.5", "usage: mute <ch> <user> [secs] — [secs]: '1.5' is not a number of seconds"),
        ("mute general bob 99999999999", "usage: mute <ch> <user> [secs] — [secs]: 99999999999 is out of range"),
        ("mute general", "usage: mute <ch> <user> [secs] — <user> is missing"),
        ("history general 5 extra", "usage: history <ch> [n] — 'extra' is one argument too many"),
        ("history general five", "usage: history <ch> [n] — [n]: 'five' is not a count of messages"),
        ("history general 0", "usage: history <ch> [n] — [n]: 0 is out of range; give a whole number from 1 to 100"),
        ("history general 1000", "usage: history <ch> [n] — [n]: 1000 is out of range"),
        ("history", "usage: history <ch> [n] — <ch> is missing"),
        ("ban general", "usage: ban <ch> <user> — <user> is missing"),
        ("ban general bob now", "usage: ban <ch> <user> — 'now' is one argument too many"),
        ("unmute general bob 10", "usage: unmute <ch> <user> — '10' is one argument too many"),
        ("promote general", "usage: promote <ch> <user> — <user> is missing"),
        ("join general lab", "usage: join <ch> — 'lab' is one argument too many"),
        ("leave", "usage: leave <ch> — <ch> is missing"),
        ("read general now", "usage: read <ch> — 'now' is one argument too many"),
        ("send general", "usage: send <ch> <text...> — <text...> is missing"),
        ("send", "usage: send <ch> <text...> — <ch> is missing"),
        ("rename general", "usage: rename <ch> <name...> — <name...> is missing"),
        ("offline now", "usage: offline — 'now' is one argument too many"),
        ("close general", "usage: close — 'general' is one argument too many"),
        ("quit now", "usage: quit — 'now' is one argument too many"),
        ("as dave", "usage: as <alice|bob|carol> — 'dave' is not a user here; act as alice, bob, carol"),
        ("as bob carol", "usage: as <alice|bob|carol> — 'carol' is one argument too many"),
        ("push abcd ef", "usage: push [token] — 'ef' is one argument too many"),
        ("notify general", "usage: notify <ch> on|off — on|off is missing"),
        ("notify general maybe", "usage: notify <ch> on|off — 'maybe' is neither on nor off"),
        ("notify general on now", "usage: notify <ch> on|off — 'now' is one argument too many"),
        ("bogus", "unknown command 'bogus'; type help"),
        ("Send general hi", "unknown command 'Send'; type help"),
    ])
    func badInputIsRefusedSayingWhich(line: String, expected: String) {
        do {
            let command = try Self.parse(line)
            Issue.record("'\(line)' was read as \(String(describing: command))")
        } catch {
            #expect(error.message.hasPrefix(expected), "'\(line)': \(error.message)")
            #expect(!error.message.hasPrefix("usage: unknown"), "an unknown command is not a usage")
        }
    }

    @Test(arguments: [
        ("mute general bob", PlaygroundCommand.mute(channel: "general", user: "bob", seconds: 60)),
        ("mute general bob 30", .mute(channel: "general", user: "bob", seconds: 30)),
        ("mute general bob -1", .mute(channel: "general", user: "bob", seconds: -1)),
        ("mute general bob 315360000", .mute(channel: "general", user: "bob", seconds: 315_360_000)),
        ("history general", .history(channel: "general", count: 10)),
        ("history general 100", .history(channel: "general", count: 100)),
        ("send general hi @bob, look", .send(channel: "general", text: "hi @bob, look")),
        ("rename lab The Lab", .rename(channel: "lab", name: "The Lab")),
        ("create lab", .create(channel: "lab", members: [])),
        ("create lab alice bob", .create(channel: "lab", members: ["alice", "bob"])),
        ("as bob", .actAs("bob")),
        ("stoptype general", .stopType("general")),
        ("exit", .quit),
        ("push", .push(token: nil)),
        ("push 0a1b2c", .push(token: "0a1b2c")),
        ("notify general off", .notify(channel: "general", on: false)),
        ("notify general on", .notify(channel: "general", on: true)),
        ("  ban  general  bob ", .ban(channel: "general", user: "bob")),
    ])
    func goodInputIsRead(line: String, expected: PlaygroundCommand) throws {
        #expect(try Self.parse(line) == expected)
    }

    @Test func emptyLinesAndCommentsRunNothing() throws {
        #expect(try Self.parse("") == nil)
        #expect(try Self.parse("   ") == nil)
        #expect(try Self.parse("# a comment") == nil)
    }
}
