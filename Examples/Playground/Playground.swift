import Foundation
import LiveChannels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One user of the playground: their client, their live channel list, the typing users of the
/// channels in it.
@MainActor
final class Participant {
    let id: String
    let client: ChatClient
    let list: LiveCollection<Channel>
    var typing: [String: LiveObject<Set<String>>] = [:]
    var tokens: [NotificationToken] = []
    var online = false
    /// The channel whose messages the participant has open (shown below the panes while they
    /// act), and its live message list.
    var openChannel: String?
    var messages: LiveCollection<Message>?
    var messagesToken: NotificationToken?

    init(id: String, transport: any ChatTransport) {
        self.id = id
        client = ChatClient(transport: transport)
        let query = ChannelListQuery(
            filter: .containMembers(userIds: [id]),
            sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 20)
        list = ChannelRepository(client: client).getChannels(query: query)
    }
}

@MainActor
final class Playground {
    let participants: [Participant]
    let interactive: Bool
    let color: Bool
    var actor: Participant
    /// The rows of each pane on the last screen, to highlight what changed.
    var previous: [String: PaneScreen] = [:]
    var redrawScheduled = false
    var lastMessage = ""

    /// A playground acting as `userIds`, each with its own client on `transport(userId)`: the
    /// embedded server's connection (`swift run Playground`) or a `WebSocketTransport` to a
    /// `chat-server` (`chat-terminal` in the `Server/` package).
    init(userIds: [String], interactive: Bool, color: Bool, transport: (String) -> any ChatTransport) {
        participants = userIds.map { Participant(id: $0, transport: transport($0)) }
        self.interactive = interactive
        self.color = color
        actor = participants[0]
    }

    func start() async throws {
        for participant in participants {
            try await participant.client.connect()
            participant.online = true
            participant.tokens.append(participant.list.observe { [weak self] _, _, _ in self?.scheduleRedraw() })
            participant.tokens.append(participant.client.connectionState.observe { [weak self] _, _ in self?.scheduleRedraw() })
        }
        // The first user opens #general and moderates it (a creator is its moderator); on a
        // shared server, whoever started first did.
        do {
            try await createChannel(as: participants[0], id: "general", members: participants.dropFirst().map(\.id))
            lastMessage = "\(participants[0].id) moderates #general"
        } catch ChatError.alreadyExists {
            // A shared server: someone opened it already.
            _ = try await ChannelRepository(client: participants[0].client).joinChannel(channelId: "general")
        }
        for participant in participants { open("general", for: participant) }
        await settle()
    }

    /// Shows the panes, runs each line of standard input as a command until `quit` or the end of
    /// input, then stops. Lines are read on a thread of their own, so that the main actor stays
    /// free for deliveries while waiting.
    func runCommandsFromStandardInput() async {
        let lines = AsyncStream<String> { continuation in
            Thread.detachNewThread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
        }
        await show(after: nil)
        for await line in lines {
            if await !run(line) { break }
        }
        await stop()
    }

    func stop() async {
        for participant in participants {
            participant.tokens.forEach { $0.invalidate() }
            await participant.client.disconnect()
        }
    }

    // MARK: Commands

    /// The commands, as `help` prints them (`as` only when there are several users to act as).
    var help: String {
        let others = participants.count > 1 ? "  as <user>                 act as \(Self.list(participants.map(\.id)))\n" : ""
        return "commands (acting user first; <ch> is a channel id):\n" + others + Self.commands
    }

    /// "a", "a or b", "a, b or c".
    static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    static let commands = """
          create <ch> [users...]    create a community channel with members
          join <ch> | leave <ch>    join or leave a channel
          send <ch> <text...>       send a message (@user mentions them)
          open <ch> | close         show a channel's messages, live, below the panes
          history <ch> [n]          print the channel's last n messages (default 10)
          read <ch> | unread <ch>   start / stop reading (unread count 0 while reading)
          type <ch> | stoptype <ch> start / stop typing
          rename <ch> <name...>     rename a channel
          ban <ch> <user>           ban a member (unban <ch> <user> to undo)
          mute <ch> <user> [secs]   mute a member (unmute <ch> <user> to undo)
          promote <ch> <user>       make a member a moderator (demote <ch> <user> to undo)
        a channel's creator moderates it (#general: the first user); moderators promote others
          offline | online          disconnect / reconnect the acting user
          show | help | quit
        """

    /// Runs one command line; `false` to stop.
    func run(_ line: String) async -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard let command = words.first, !command.hasPrefix("#") else { return true }
        let args = Array(words.dropFirst())
        if !interactive { write("\(actor.id)> \(line)\n") }
        do {
            lastMessage = try await perform(command, args)
        } catch let error as UsageError {
            lastMessage = "usage: \(error.usage)"
        } catch {
            lastMessage = "! \(Self.words(for: error))"
        }
        if command == "quit" || command == "exit" { return false }
        await settle()
        await show(after: line)
        return true
    }

    private func perform(_ command: String, _ args: [String]) async throws -> String {
        let me = actor
        let repository = ChannelRepository(client: me.client)
        let messages = MessageRepository(client: me.client)
        func channel(_ usage: String) throws -> String {
            guard let id = args.first else { throw UsageError(usage: usage) }
            return id
        }
        switch command {
        case "as":
            guard let id = args.first, let participant = participants.first(where: { $0.id == id }) else {
                throw UsageError(usage: "as <\(participants.map(\.id).joined(separator: "|"))>")
            }
            actor = participant
            return "acting as \(id)"
        case "create":
            let id = try channel("create <ch> [users...]")
            try await createChannel(as: me, id: id, members: Array(args.dropFirst()))
            return "\(me.id) created #\(id)"
        case "join":
            let id = try channel("join <ch>")
            _ = try await repository.joinChannel(channelId: id)
            return "\(me.id) joined #\(id)"
        case "leave":
            let id = try channel("leave <ch>")
            try await repository.leaveChannel(id)
            return "\(me.id) left #\(id)"
        case "send":
            let id = try channel("send <ch> <text...>")
            let text = args.dropFirst().joined(separator: " ")
            guard !text.isEmpty else { throw UsageError(usage: "send <ch> <text...>") }
            _ = try await messages.sendMessage(channelId: id, text: text, mentionedUserIds: Self.mentions(in: text))
            return "\(me.id) → #\(id): \(text)"
        case "open":
            let id = try channel("open <ch>")
            _ = try await repository.getChannel(channelId: id)  // a clear error for a wrong id
            open(id, for: me)
            return "\(me.id) opened #\(id)"
        case "close":
            close(for: me)
            return "\(me.id) closed the message pane"
        case "history":
            let id = try channel("history <ch> [n]")
            let count = args.count > 1 ? Int(args[1]) ?? 0 : 10
            guard (1...100).contains(count) else { throw UsageError(usage: "history <ch> [n], n from 1 to 100") }
            let list = messages.getMessages(channelId: id, pageSize: count)
            for await update in list.updates where update.loadingStatus != .loading { break }
            if let error = list.error { throw error }
            let lines = list.snapshots.suffix(count).map { Self.line(for: $0, viewer: me.id) }
            return (["#\(id), the last \(lines.count):"] + lines).joined(separator: "\n")
        case "read":
            let id = try channel("read <ch>")
            try await ChannelParticipation(client: me.client, channelId: id).startReading()
            return "\(me.id) is reading #\(id)"
        case "unread":
            let id = try channel("unread <ch>")
            try await ChannelParticipation(client: me.client, channelId: id).stopReading()
            return "\(me.id) stopped reading #\(id)"
        case "type":
            let id = try channel("type <ch>")
            try await messages.startTyping(channelId: id)
            return "\(me.id) is typing in #\(id)"
        case "stoptype":
            let id = try channel("stoptype <ch>")
            try await messages.stopTyping(channelId: id)
            return "\(me.id) stopped typing in #\(id)"
        case "rename":
            let id = try channel("rename <ch> <name...>")
            let name = args.dropFirst().joined(separator: " ")
            guard !name.isEmpty else { throw UsageError(usage: "rename <ch> <name...>") }
            let updater = ChannelUpdateBuilder(channelId: id, client: me.client)
            updater.setDisplayName(name)
            _ = try await repository.updateChannel(with: updater)
            return "\(me.id) renamed #\(id) to \(name)"
        case "ban", "unban":
            guard args.count == 2 else { throw UsageError(usage: "\(command) <ch> <user>") }
            let moderation = ChannelModeration(client: me.client, channelId: args[0])
            if command == "ban" {
                _ = try await moderation.banMembers([args[1]])
            } else {
                _ = try await moderation.unbanMembers([args[1]])
            }
            return "\(me.id) \(command)ned \(args[1]) in #\(args[0])"
        case "mute", "unmute":
            guard args.count >= 2 else { throw UsageError(usage: "\(command) <ch> <user>\(command == "mute" ? " [secs]" : "")") }
            let moderation = ChannelModeration(client: me.client, channelId: args[0])
            if command == "mute" {
                let seconds = args.count > 2 ? TimeInterval(args[2]) ?? 60 : 60
                _ = try await moderation.muteMembers([args[1]], mutePeriod: seconds)
                let period = seconds == -1 ? "until unmuted" : "for \(seconds.formatted(.number.grouping(.never))) s"
                return "\(me.id) muted \(args[1]) in #\(args[0]) \(period)"
            }
            _ = try await moderation.unmuteMembers([args[1]])
            return "\(me.id) unmuted \(args[1]) in #\(args[0])"
        case "promote", "demote":
            guard args.count == 2 else { throw UsageError(usage: "\(command) <ch> <user>") }
            let moderation = ChannelModeration(client: me.client, channelId: args[0])
            if command == "promote" {
                _ = try await moderation.addRole("moderator", userIds: [args[1]])
                return "\(me.id) made \(args[1]) a moderator of #\(args[0])"
            }
            _ = try await moderation.removeRole("moderator", userIds: [args[1]])
            return "\(me.id) made \(args[1]) a member of #\(args[0]) again"
        case "offline":
            await me.client.disconnect()
            me.online = false
            return "\(me.id) is offline"
        case "online":
            try await me.client.connect()
            me.online = true
            return "\(me.id) is online"
        case "show":
            return ""
        case "help":
            return help
        case "quit", "exit":
            return "bye"
        default:
            throw UsageError(usage: "unknown command '\(command)'; type help")
        }
    }

    /// The users a text mentions: each `@name` (letters, digits, `-`, `_`, `.`), once, in order.
    static func mentions(in text: String) -> [String] {
        var names: [String] = []
        for word in text.split(whereSeparator: \.isWhitespace) where word.hasPrefix("@") {
            let name = String(word.dropFirst().prefix { $0.isLetter || $0.isNumber || "-_.".contains($0) })
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
            if !name.isEmpty, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// A message as the message pane and `history` show it; `@` marks one that mentions `viewer`.
    static func line(for message: Message, viewer: String) -> String {
        let mark = message.mentionedUserIds.contains(viewer) ? "@" : " "
        let text = message.isDeleted ? "(deleted)" : message.text
        return "\(mark) \(message.userId): \(text)"
    }

    /// Opens `channelId`'s messages for `participant`: a live list, redrawn as messages arrive.
    private func open(_ channelId: String, for participant: Participant) {
        close(for: participant)
        let list = MessageRepository(client: participant.client).getMessages(channelId: channelId, pageSize: 20)
        participant.openChannel = channelId
        participant.messages = list
        participant.messagesToken = list.observe { [weak self] _, _, _ in self?.scheduleRedraw() }
    }

    private func close(for participant: Participant) {
        participant.messagesToken?.invalidate()
        participant.messagesToken = nil
        participant.messages = nil
        participant.openChannel = nil
    }

    /// The acting user's open channel: its newest messages, oldest first.
    private func messagePane() -> [String] {
        guard let channelId = actor.openChannel, let messages = actor.messages else { return [] }
        let shown = messages.snapshots.suffix(Self.messagePaneHeight)
        var rows = ["── #\(channelId), as \(actor.id) " + String(repeating: "─", count: 20)]
        if shown.isEmpty { rows.append("  (no messages)") }
        rows += shown.map { Self.line(for: $0, viewer: actor.id) }
        return rows
    }

    /// Messages the message pane shows.
    static let messagePaneHeight = 8

    private func createChannel(as participant: Participant, id: String, members: [String]) async throws {
        let builder = CommunityChannelBuilder()
        builder.setId(id)
        builder.setDisplayName(id.capitalized)
        builder.setUserIds(members)
        _ = try await ChannelRepository(client: participant.client).createChannel(with: builder)
    }

    /// Waits until every connected client has applied what the server sent, and the main queue
    /// has delivered it (so a script sees each command's effects on every pane).
    private func settle() async {
        for participant in participants where participant.online {
            await participant.client.synchronize()
        }
        for participant in participants { watchTyping(of: participant) }
        await Task.yield()
    }

    /// Typing users of each channel in the participant's list (a live object per channel).
    private func watchTyping(of participant: Participant) {
        let messages = MessageRepository(client: participant.client)
        for channel in participant.list.snapshots where participant.typing[channel.channelId] == nil {
            let typing = messages.getTypingUsers(channelId: channel.channelId)
            participant.typing[channel.channelId] = typing
            participant.tokens.append(typing.observe { [weak self] _, _ in self?.scheduleRedraw() })
        }
    }

    // MARK: Screen

    private func scheduleRedraw() {
        guard interactive, !redrawScheduled else { return }
        redrawScheduled = true
        Task { @MainActor in
            redrawScheduled = false
            watchTyping(of: actor)
            participants.forEach(watchTyping(of:))
            await show(after: nil)
        }
    }

    /// The rows of one pane: the user's connection and each channel of their live list.
    private func rows(of participant: Participant) -> [String] {
        var rows = ["\(participant.id == actor.id ? "▶ " : "")\(participant.id) (\(Self.connection(of: participant.client)))"]
        let channels = participant.list.snapshots
        if channels.isEmpty { rows.append("  (no channels)") }
        for channel in channels {
            var row = "  #\(channel.channelId) \(channel.displayName ?? "")"
            if channel.currentUserMembership == .banned { row += " [banned]" }
            if channel.unreadCount > 0 { row += " (\(channel.unreadCount)\(channel.hasMention ? " @" : ""))" }
            let typing = (participant.typing[channel.channelId]?.snapshot ?? []).subtracting([participant.id])
            if !typing.isEmpty { row += " ✎\(typing.sorted().joined(separator: ","))" }
            rows.append(row)
        }
        return rows
    }

    func show(after line: String?) async {
        let width = max(26, min(40, (terminalWidth() - 2) / participants.count - 3))
        var panes: [[String]] = []
        for participant in participants {
            let current = rows(of: participant)
            // A redraw that changes nothing in a pane (a delivery that arrives after the screen
            // of its command) keeps that pane's highlights; a change is compared with the rows
            // shown before it.
            if let screen = previous[participant.id], screen.rows == current {
                panes.append(screen.cells(width))
                continue
            }
            let before = previous[participant.id]?.rows
            var cells: [(String, Bool)] = current.enumerated().map { index, row in
                (row, before != nil && (index >= before!.count || before![index] != row))
            }
            // Channels that left the list are shown struck out.
            let currentIds = Set(current.dropFirst().map(channelId(ofRow:)))
            for row in (before ?? []).dropFirst() where !currentIds.contains(channelId(ofRow: row)) && row.hasPrefix("  #") {
                cells.append(("  ✗ " + row.dropFirst(2), true))
            }
            let screen = PaneScreen(rows: current, marked: cells) { [unowned self] text, width, changed in
                cell(text, width: width, changed: changed)
            }
            previous[participant.id] = screen
            let pane = screen.cells(width)
            panes.append(pane)
        }
        var output = interactive ? "\u{1B}[2J\u{1B}[H" : ""
        if interactive {
            output += bold("LiveChannels playground") + " — each pane is that user's own client. Type help.\n\n"
        }
        let height = panes.map(\.count).max() ?? 0
        for row in 0..<height {
            output += panes.map { row < $0.count ? $0[row] : String(repeating: " ", count: width + 2) }
                .joined(separator: " │ ") + "\n"
        }
        let pane = messagePane()
        if !pane.isEmpty { output += pane.joined(separator: "\n") + "\n" }
        if !lastMessage.isEmpty { output += lastMessage + "\n" }
        if interactive { output += "\n\(actor.id)> " }
        if !interactive { output += "\n" }
        write(output)
    }

    private func channelId(ofRow row: String) -> String {
        String(row.drop { $0 == " " }.prefix { $0 != " " })
    }

    private func cell(_ text: String, width: Int, changed: Bool) -> String {
        var visible = String(text.prefix(width))
        visible += String(repeating: " ", count: max(0, width - visible.count))
        if color {
            return changed ? "  \u{1B}[1;30;43m\(visible)\u{1B}[0m" : "  \(visible)"
        }
        return (changed ? "* " : "  ") + visible
    }

    /// Writes unbuffered, so that echoed commands and screens keep their order in a pipe.
    private func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    private func bold(_ text: String) -> String { color ? "\u{1B}[1m\(text)\u{1B}[0m" : text }

    private func terminalWidth() -> Int {
        var size = winsize()
        if interactive, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return 110
    }
}

/// What a pane showed: its rows, and each cell with whether it is highlighted.
@MainActor
struct PaneScreen {
    var rows: [String]
    var marked: [(String, Bool)]
    var render: (String, Int, Bool) -> String

    func cells(_ width: Int) -> [String] {
        marked.map { render($0.0, width, $0.1) }
    }
}

extension Playground {
    /// The connection as a person reads it: "online", "connecting…", "reconnecting…", or
    /// "offline" with why, when the client knows (the server went away, the token expired).
    static func connection(of client: ChatClient) -> String {
        let state = client.connectionState
        switch state.snapshot ?? .disconnected {
        case .connected: return "online"
        case .connecting: return "connecting…"
        case .reconnecting: return "reconnecting…"
        case .disconnected:
            guard let error = state.error else { return "offline" }
            return "offline: \(words(for: error))"
        }
    }

    /// An error in words for the person at the terminal, without an app's advice.
    static func words(for error: any Error) -> String {
        switch error as? ChatError {
        case .unavailable(let reason)?: "the server cannot be reached (\(reason))"
        case .unauthorized(let reason)?: "signed out by the server (\(reason)); start again with a new token"
        case .notFound(let what)?: "not found: \(what)"
        case .rateLimited(let seconds)?: "too fast; try again in \(seconds.isFinite ? Int(max(1, min(seconds.rounded(.up), 3_600))) : 1) s"
        default: "\(error)"
        }
    }
}

struct UsageError: Error {
    var usage: String
}
