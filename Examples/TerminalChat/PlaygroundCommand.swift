/// One line of the terminal chat, read: the command and every argument checked before anything
/// runs. Reading refuses what it cannot read — an argument missing, one too many, a number that
/// is not one or out of range — naming the argument and saying why, so that a typo never acts
/// (`mute general bob abc` mutes nobody).
public enum PlaygroundCommand: Equatable, Sendable {
    case actAs(String)
    case create(channel: String, members: [String])
    case join(String)
    case leave(String)
    case send(channel: String, text: String)
    case open(String)
    case close
    case history(channel: String, count: Int)
    case read(String)
    case unread(String)
    case type(String)
    case stopType(String)
    case rename(channel: String, name: String)
    case ban(channel: String, user: String)
    case unban(channel: String, user: String)
    /// `seconds` is -1 for "until unmuted".
    case mute(channel: String, user: String, seconds: Int)
    case unmute(channel: String, user: String)
    case promote(channel: String, user: String)
    case demote(channel: String, user: String)
    /// Registers a push token for the acting user (`nil`: a made-up APNs token of theirs).
    case push(token: String?)
    /// Turns the acting user's notifications of a channel on or off.
    case notify(channel: String, on: Bool)
    case offline
    case online
    case show
    case help
    case quit

    /// A mute without `[secs]` lasts this long.
    public static let defaultMuteSeconds = 60
    /// The longest mute: ten years, the server's longest period.
    public static let longestMuteSeconds = 315_360_000
    /// The most messages `history` prints.
    public static let longestHistory = 100

    /// Why a line was not run: what a person reads. `usage` is the command's form when the line
    /// named a command (`nil` for an unknown one).
    public struct Refusal: Error, Equatable, Sendable {
        public var usage: String?
        public var reason: String

        /// "usage: mute <ch> <user> [secs] — 'abc' is not …", or the reason alone.
        public var message: String { usage.map { "usage: \($0) — \(reason)" } ?? reason }
    }

    /// Reads `line` (words separated by spaces); `nil` for an empty line or a comment (`#`).
    /// - Parameter users: the users `as` may name.
    /// - Throws: ``Refusal`` for a line that cannot be run as written.
    public static func parse(_ line: String, users: [String]) throws(Refusal) -> PlaygroundCommand? {
        let words = line.split(separator: " ").map(String.init)
        guard let name = words.first, !name.hasPrefix("#") else { return nil }
        guard let form = forms[name] else {
            throw Refusal(usage: nil, reason: "unknown command '\(name)'; type help")
        }
        var reader = Reader(
            usage: name == "as" ? "as <\(users.joined(separator: "|"))>" : form, words: words.dropFirst())
        switch name {
        case "as":
            let user = try reader.word("<user>")
            try reader.end()
            guard users.contains(user) else {
                throw reader.refusal("'\(user)' is not a user here; act as \(users.joined(separator: ", "))")
            }
            return .actAs(user)
        case "create":
            return .create(channel: try reader.word("<ch>"), members: reader.rest())
        case "join", "leave", "open", "read", "unread", "type", "stoptype":
            let channel = try reader.word("<ch>")
            try reader.end()
            switch name {
            case "join": return .join(channel)
            case "leave": return .leave(channel)
            case "open": return .open(channel)
            case "read": return .read(channel)
            case "unread": return .unread(channel)
            case "type": return .type(channel)
            default: return .stopType(channel)
            }
        case "send":
            return .send(channel: try reader.word("<ch>"), text: try reader.text("<text...>"))
        case "rename":
            return .rename(channel: try reader.word("<ch>"), name: try reader.text("<name...>"))
        case "history":
            let channel = try reader.word("<ch>")
            let count = try reader.number("[n]", in: 1...longestHistory, meaning: "a count of messages") ?? 10
            try reader.end()
            return .history(channel: channel, count: count)
        case "ban", "unban", "unmute", "promote", "demote":
            let (channel, user) = (try reader.word("<ch>"), try reader.word("<user>"))
            try reader.end()
            switch name {
            case "ban": return .ban(channel: channel, user: user)
            case "unban": return .unban(channel: channel, user: user)
            case "unmute": return .unmute(channel: channel, user: user)
            case "promote": return .promote(channel: channel, user: user)
            default: return .demote(channel: channel, user: user)
            }
        case "push":
            let token = reader.rest()
            guard token.count <= 1 else {
                throw reader.refusal("'\(token[1])' is one argument too many; nothing was done")
            }
            return .push(token: token.first)
        case "notify":
            let channel = try reader.word("<ch>")
            let setting = try reader.word("on|off")
            try reader.end()
            guard setting == "on" || setting == "off" else {
                throw reader.refusal("'\(setting)' is neither on nor off")
            }
            return .notify(channel: channel, on: setting == "on")
        case "mute":
            let (channel, user) = (try reader.word("<ch>"), try reader.word("<user>"))
            let seconds =
                try reader.number(
                    "[secs]", in: 1...longestMuteSeconds, orMinusOne: true,
                    meaning: "a number of seconds (-1: until unmuted)") ?? defaultMuteSeconds
            try reader.end()
            return .mute(channel: channel, user: user, seconds: seconds)
        default:
            try reader.end()
            switch name {
            case "close": return .close
            case "offline": return .offline
            case "online": return .online
            case "show": return .show
            case "help": return .help
            default: return .quit
            }
        }
    }

    /// Each command's form, as `help` lists it and a refusal quotes it.
    static let forms: [String: String] = [
        "as": "as <user>", "create": "create <ch> [users...]", "join": "join <ch>", "leave": "leave <ch>",
        "send": "send <ch> <text...>", "open": "open <ch>", "close": "close", "history": "history <ch> [n]",
        "read": "read <ch>", "unread": "unread <ch>", "type": "type <ch>", "stoptype": "stoptype <ch>",
        "rename": "rename <ch> <name...>", "ban": "ban <ch> <user>", "unban": "unban <ch> <user>",
        "mute": "mute <ch> <user> [secs]", "unmute": "unmute <ch> <user>", "promote": "promote <ch> <user>",
        "demote": "demote <ch> <user>", "push": "push [token]", "notify": "notify <ch> on|off", "offline": "offline",
        "online": "online", "show": "show", "help": "help",
        "quit": "quit", "exit": "exit",
    ]

    /// The arguments of one command, taken in order.
    private struct Reader {
        let usage: String
        var words: ArraySlice<String>

        func refusal(_ reason: String) -> Refusal { Refusal(usage: usage, reason: reason) }

        /// The next argument, which must be there.
        mutating func word(_ name: String) throws(Refusal) -> String {
            guard let word = words.popFirst() else { throw refusal("\(name) is missing") }
            return word
        }

        /// Every argument left, as one text, which must not be empty.
        mutating func text(_ name: String) throws(Refusal) -> String {
            defer { words = [] }
            guard !words.isEmpty else { throw refusal("\(name) is missing") }
            return words.joined(separator: " ")
        }

        /// Every argument left (possibly none).
        mutating func rest() -> [String] {
            defer { words = [] }
            return Array(words)
        }

        /// The next argument as a whole number in `range` (or -1 when `orMinusOne`), `nil` when
        /// there is none.
        mutating func number(
            _ name: String, in range: ClosedRange<Int>, orMinusOne: Bool = false, meaning: String
        ) throws(Refusal) -> Int? {
            guard let word = words.popFirst() else { return nil }
            let bounds = "from \(range.lowerBound) to \(range.upperBound)\(orMinusOne ? ", or -1" : "")"
            guard let value = Int(word) else {
                throw refusal("\(name): '\(word)' is not \(meaning); give a whole number \(bounds)")
            }
            guard range.contains(value) || (orMinusOne && value == -1) else {
                throw refusal("\(name): \(value) is out of range; give a whole number \(bounds)")
            }
            return value
        }

        /// Refuses an argument left over.
        func end() throws(Refusal) {
            if let extra = words.first {
                throw refusal("'\(extra)' is one argument too many; nothing was done")
            }
        }
    }
}
