import Foundation
import LiveChannels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The commands a line of input runs, as `help` lists them.
extension Playground {
    /// The commands, as `help` prints them (`as` only when there are several users to act as).
    var help: String {
        let others =
            participants.count > 1 ? "  as <user>                 act as \(Self.list(participants.map(\.id)))\n" : ""
        return "commands (acting user first; <ch> is a channel id):\n" + others + Self.commands
    }

    /// "a", "a or b", "a, b or c".
    static func list(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    static let commands = """
          create <ch> [users...]    create a community channel with members
          join <ch> | leave <ch>    join or leave a channel
          send <ch> <text...>       send a message (@user mentions them; kept while offline)
          open <ch> | close         show a channel's messages, live, below the panes
          history <ch> [n]          print the channel's last n messages (1 to 100; default 10)
          read <ch> | unread <ch>   start / stop reading (unread count 0 while reading)
          type <ch> | stoptype <ch> start / stop typing
          rename <ch> <name...>     rename a channel
          ban <ch> <user>           ban a member (unban <ch> <user> to undo)
          mute <ch> <user> [secs]   mute a member for secs (60 if left out; -1: until unmuted)
          promote <ch> <user>       make a member a moderator (demote <ch> <user> to undo)
        a channel's creator moderates it (#general: the first user); moderators promote others
          push [token]              register a push token (hex; left out: a made-up one) for the acting user
          notify <ch> on|off        turn the acting user's pushes of a channel on or off
          offline | online          disconnect / reconnect the acting user
          show | help | quit
        """

    /// Runs one command line; `false` to stop. A line that cannot be read runs nothing: the
    /// screen says which argument and why. Keys typed that are not text (cursor keys, Ctrl-L)
    /// are taken out first (``TypedLine``); Ctrl-L on its own draws the screen again.
    func run(_ typed: String) async -> Bool {
        let cleaned = TypedLine(typed)
        let line = cleaned.text
        if cleaned.asksRedraw, line.allSatisfy(\.isWhitespace) {
            await show(after: nil)
            return true
        }
        let command: PlaygroundCommand
        do {
            guard let parsed = try PlaygroundCommand.parse(line, users: participants.map(\.id)) else { return true }
            command = parsed
        } catch {
            if !interactive { write("\(actor.id)> \(line)\n") }
            lastMessage = error.message
            await show(after: line)
            return true
        }
        if !interactive { write("\(actor.id)> \(line)\n") }
        do {
            lastMessage = try await perform(command)
        } catch {
            lastMessage = "! \(Self.words(for: error))"
        }
        if command == .quit { return false }
        await settle()
        await show(after: line)
        return true
    }

    func perform(_ command: PlaygroundCommand) async throws -> String {
        let me = actor
        let repository = ChannelRepository(client: me.client)
        let messages = MessageRepository(client: me.client)
        switch command {
        case .actAs(let id):
            actor = participants.first { $0.id == id }!
            return "acting as \(id)"
        case .create(let id, let members):
            try await createChannel(as: me, id: id, members: members)
            return "\(me.id) created #\(id)"
        case .join(let id):
            _ = try await repository.joinChannel(channelId: id)
            return "\(me.id) joined #\(id)"
        case .leave(let id):
            try await repository.leaveChannel(id)
            return "\(me.id) left #\(id)"
        case .send(let id, let text):
            // Through the outbox: kept and shown at once, sent when connected, never doubled.
            let local = try messages.createMessage(
                channelId: id, text: text, mentionedUserIds: Self.mentions(in: text))
            switch await outcome(of: local, for: me) {
            case .synced:
                return "\(me.id) → #\(id): \(text)"
            case .failed(let error):
                // Refused by a rule: said, and not kept (nothing to resend here).
                try? await messages.discardMessage(channelId: id, messageId: local.messageId)
                throw error
            case .syncing:
                let waiting = "\(me.id) → #\(id): \(text) (sending… it goes once \(me.id) is online)"
                if interactive { sayWhenSent(local, of: me, waiting: waiting) }
                return waiting
            }
        case .open(let id):
            _ = try await repository.getChannel(channelId: id)  // a clear error for a wrong id
            open(id, for: me)
            return "\(me.id) opened #\(id)"
        case .close:
            close(for: me)
            return "\(me.id) closed the message pane"
        case .history(let id, let count):
            let list = messages.getMessages(channelId: id, pageSize: count)
            for await update in list.updates where update.loadingStatus != .loading { break }
            if let error = list.error { throw error }
            let lines = list.snapshots.suffix(count).map { Self.line(for: $0, viewer: me.id) }
            return (["#\(id), the last \(lines.count):"] + lines).joined(separator: "\n")
        case .read(let id):
            try await ChannelParticipation(client: me.client, channelId: id).startReading()
            return "\(me.id) is reading #\(id)"
        case .unread(let id):
            try await ChannelParticipation(client: me.client, channelId: id).stopReading()
            return "\(me.id) stopped reading #\(id)"
        case .type(let id):
            try await messages.startTyping(channelId: id)
            return "\(me.id) is typing in #\(id)"
        case .stopType(let id):
            try await messages.stopTyping(channelId: id)
            return "\(me.id) stopped typing in #\(id)"
        case .rename(let id, let name):
            let updater = ChannelUpdateBuilder(channelId: id, client: me.client)
            updater.setDisplayName(name)
            _ = try await repository.updateChannel(with: updater)
            return "\(me.id) renamed #\(id) to \(name)"
        case .ban(let id, let user):
            _ = try await ChannelModeration(client: me.client, channelId: id).banMembers([user])
            return "\(me.id) banned \(user) in #\(id)"
        case .unban(let id, let user):
            // Said as it is: unbanning someone who is not banned changes nothing.
            let wasBanned = await Self.isListed(user, in: id, filter: .ban, for: me)
            _ = try await ChannelModeration(client: me.client, channelId: id).unbanMembers([user])
            if wasBanned == false { return "\(user) is not banned from #\(id); nothing changed" }
            return "\(me.id) unbanned \(user) in #\(id)"
        case .mute(let id, let user, let seconds):
            _ = try await ChannelModeration(client: me.client, channelId: id).muteMembers(
                [user], mutePeriod: TimeInterval(seconds))
            return "\(me.id) muted \(user) in #\(id) \(seconds == -1 ? "until unmuted" : "for \(seconds) s")"
        case .unmute(let id, let user):
            _ = try await ChannelModeration(client: me.client, channelId: id).unmuteMembers([user])
            return "\(me.id) unmuted \(user) in #\(id)"
        case .promote(let id, let user):
            _ = try await ChannelModeration(client: me.client, channelId: id).addRole("moderator", userIds: [user])
            return "\(me.id) made \(user) a moderator of #\(id)"
        case .demote(let id, let user):
            let wasModerator = await Self.isListed(user, in: id, filter: .all, roles: ["moderator"], for: me)
            _ = try await ChannelModeration(client: me.client, channelId: id).removeRole("moderator", userIds: [user])
            if wasModerator == false { return "\(user) is no moderator of #\(id); nothing changed" }
            return "\(me.id) made \(user) a member of #\(id) again"
        case .push(let token):
            let token = token ?? Self.madeUpPushToken(for: me.id)
            try await me.client.registerPushNotification(withDeviceToken: token)
            return "\(me.id) registered the push token \(token.prefix(12))…; \(pushesWhenAway(me.id))"
        case .notify(let id, let on):
            let manager = ChannelNotificationsManager(client: me.client, channelId: id)
            if on { try await manager.enable() } else { try await manager.disable() }
            return "\(me.id) turned the pushes of #\(id) \(on ? "on" : "off")"
        case .offline:
            me.connecting?.cancel()
            await me.client.disconnect()
            me.online = false
            return "\(me.id) is offline"
        case .online:
            me.connecting?.cancel()
            try await me.client.connect()
            me.online = true
            return "\(me.id) is online"
        case .show:
            return ""
        case .help:
            return help
        case .quit:
            return "bye"
        }
    }

    /// A push token for trying pushes out: 32 bytes in hex, like an APNs token, made from the
    /// user's id so that each user has their own, the same in every run.
    static func madeUpPushToken(for userId: String) -> String {
        var bytes = Array(userId.utf8.prefix(32))
        bytes += repeatElement(0xa5, count: 32 - bytes.count)
        return bytes.map { String(format: "%02x", $0) }.joined()
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

    /// On a terminal's screen, where `waiting` still says a message is sending: once it is sent
    /// (or refused), says so instead, so that the screen never shows "sending…" for a message
    /// that went.
    func sayWhenSent(_ local: Message, of participant: Participant, waiting: String) {
        let messages = MessageRepository(client: participant.client)
        Task { [weak self] in
            let line = "\(participant.id) → #\(local.channelId): \(local.text)"
            var shown = waiting
            while true {
                try? await Task.sleep(for: .milliseconds(200))
                // Another command's answer took the line: nothing to correct any more.
                guard let self, lastMessage == shown else { return }
                let unsent = messages.unsentMessages.first { $0.messageId == local.messageId }
                let now: String
                switch unsent?.syncState {
                case nil: now = "\(line) (sent)"
                // Refused for now: said, and watched on (a message typed for #general before it
                // existed is sent again once it does).
                case .failed(let error)?: now = "\(line) (not sent: \(Self.words(for: error)))"
                default: continue
                }
                if now != shown {
                    lastMessage = now
                    shown = now
                    scheduleRedraw()
                }
                if unsent == nil { return }
            }
        }
    }

    /// Whether `user` is among the members of `channelId` that `filter` and `roles` select, as
    /// `participant` can see them; `nil` when that cannot be told (the list failed, or its first
    /// page is full without them).
    static func isListed(
        _ user: String, in channelId: String, filter: MemberFilter, roles: [String] = [], for participant: Participant
    ) async -> Bool? {
        let pageSize = ChannelListQuery.maximumPageSize
        let list = ChannelParticipation(client: participant.client, channelId: channelId).getMembers(
            filter: filter, roles: roles, pageSize: pageSize)
        for await update in list.updates where update.loadingStatus != .loading { break }
        guard list.error == nil else { return nil }
        let members = list.snapshots
        if members.contains(where: { $0.userId == user }) { return true }
        return members.count < pageSize ? false : nil
    }

    /// A message as the message pane and `history` show it; `@` marks one that mentions `viewer`.
    static func line(for message: Message, viewer: String) -> String {
        let mark = message.mentionedUserIds.contains(viewer) ? "@" : " "
        let text = message.isDeleted ? "(deleted)" : message.text
        let state =
            switch message.syncState {
            case .synced: ""
            case .syncing: "  (sending…)"
            case .failed: "  (not sent)"
            }
        return "\(mark) \(message.userId): \(text)\(state)"
    }

    /// How a message of the outbox stands once its first try is over: `.syncing` while the
    /// participant is offline (it goes once they are online), else `.synced` or `.failed` (at
    /// most 5 s; a try that keeps failing for want of a connection is still `.syncing`).
    func outcome(of local: Message, for participant: Participant) async -> MessageSyncState {
        let messages = MessageRepository(client: participant.client)
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            guard let unsent = messages.unsentMessages.first(where: { $0.messageId == local.messageId }) else {
                return .synced
            }
            if unsent.syncState != .syncing || participant.client.connectionState.snapshot != .connected
                || ContinuousClock.now >= deadline
            {
                return unsent.syncState
            }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Opens `channelId`'s messages for `participant`: a live list, redrawn as messages arrive.
    func open(_ channelId: String, for participant: Participant) {
        close(for: participant)
        let list = MessageRepository(client: participant.client).getMessages(channelId: channelId, pageSize: 20)
        participant.openChannel = channelId
        participant.messages = list
        participant.messagesToken = list.observe { [weak self] _, _, _ in self?.scheduleRedraw() }
    }

    func close(for participant: Participant) {
        participant.messagesToken?.invalidate()
        participant.messagesToken = nil
        participant.messages = nil
        participant.openChannel = nil
    }

    /// The acting user's open channel: its newest messages, oldest first.
    func messagePane() -> [String] {
        guard let channelId = actor.openChannel, let messages = actor.messages else { return [] }
        let shown = messages.snapshots.suffix(Self.messagePaneHeight)
        var rows = ["── #\(channelId), as \(actor.id) " + String(repeating: "─", count: 20)]
        if shown.isEmpty { rows.append("  (no messages)") }
        rows += shown.map { Self.line(for: $0, viewer: actor.id) }
        return rows
    }

    /// Messages the message pane shows.
    static let messagePaneHeight = 8

    @discardableResult
    func createChannel(as participant: Participant, id: String, members: [String]) async throws -> Channel {
        let builder = CommunityChannelBuilder()
        builder.setId(id)
        builder.setDisplayName(id.capitalized)
        builder.setUserIds(members)
        return try await ChannelRepository(client: participant.client).createChannel(with: builder)
    }

    /// Waits until every connected client has applied what the server sent, and the main queue
    /// has delivered it (so a script sees each command's effects on every pane).
    func settle() async {
        for participant in participants where participant.online {
            await participant.client.synchronize()
        }
        for participant in participants { watchTyping(of: participant) }
        await Task.yield()
    }

    /// Typing users of each channel in the participant's list (a live object per channel).
    func watchTyping(of participant: Participant) {
        let messages = MessageRepository(client: participant.client)
        for channel in participant.list.snapshots where participant.typing[channel.channelId] == nil {
            let typing = messages.getTypingUsers(channelId: channel.channelId)
            participant.typing[channel.channelId] = typing
            participant.tokens.append(typing.observe { [weak self] _, _ in self?.scheduleRedraw() })
        }
    }
}
