import Foundation
import LiveChannels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A chat in the terminal: one pane per user shows that user's own live channel list (unread
/// counts, mentions, who is typing), the acting user's open channel below; commands typed (or
/// piped) on standard input act as any of the users. `swift run Playground` runs it on the
/// embedded server; `chat-terminal` (the `Server/` package) on a `chat-server`.
@MainActor
public final class Playground {
    let participants: [Participant]
    let interactive: Bool
    let color: Bool
    var actor: Participant
    /// The rows of each pane on the last screen, to highlight what changed.
    var previous: [String: PaneScreen] = [:]
    var redrawScheduled = false
    var lastMessage = ""
    /// The first line of an interactive screen: what this is ("LiveChannels playground"; the
    /// terminal chat names its user and server).
    public var title = "LiveChannels playground"
    /// Where the messages still sending at `quit` are kept (the cache file, with `.sqlite`
    /// persistence), to say so; `nil`: they are lost with the process.
    public var keepsMessagesSending: String?
    /// What becomes of a registered push token while its user is away: the embedded server
    /// (`swift run Playground`) has no push provider, so it pushes nothing; a `chat-server` does
    /// when started with one.
    public var pushesWhenAway: @MainActor (_ userId: String) -> String = { _ in
        "the Playground's embedded server has no push provider, so nothing is pushed here: a chat-server started with one (APNs, FCM or --push-webhook) pushes each message to it while the user is away"
    }

    /// A playground acting as `userIds`, each with its own client on `transport(userId)`: the
    /// embedded server's connection (`swift run Playground`) or a `WebSocketTransport` to a
    /// `chat-server` (`chat-terminal` in the `Server/` package).
    ///
    /// - Parameters:
    ///   - interactive: redraw the screen as changes arrive (a terminal); otherwise each command
    ///     is echoed and followed by the panes, changed rows marked `*`.
    ///   - color: ANSI highlighting.
    ///   - persistence: where each user's client keeps its cache — with `.sqlite`, the messages
    ///     still sending when the playground stops stay in the file and go when it starts again.
    public init(
        userIds: [String], interactive: Bool, color: Bool, persistence: (String) -> Persistence = { _ in .inMemory },
        transport: (String) -> any ChatTransport
    ) {
        participants = userIds.map { Participant(id: $0, transport: transport($0), persistence: persistence($0)) }
        self.interactive = interactive
        self.color = color
        actor = participants[0]
    }

    /// Connects every user, opens `#general` (created by the first user, or joined when it
    /// exists on a shared server) and waits until the lists have settled. A user whose server
    /// cannot be reached is shown offline ("offline: the server cannot be reached …") and
    /// connects by itself once it can, every second; #general opens then.
    ///
    /// - Throws: the `ChatError` of opening `#general` (a refused token, say).
    public func start() async throws {
        for participant in participants {
            participant.tokens.append(participant.list.observe { [weak self] _, _, _ in self?.scheduleRedraw() })
            participant.tokens.append(
                participant.client.connectionState.observe { [weak self] _, _ in
                    self?.noticeConnection(of: participant)
                    self?.scheduleRedraw()
                })
        }
        for participant in participants {
            do {
                try await participant.client.connect()
                participant.online = true
            } catch ChatError.unavailable {
                keepConnecting(participant)
            }
        }
        if participants[0].online { try await openGeneral() }
        await settle()
    }

    /// The first user opens #general and moderates it (a creator is its moderator); on a shared
    /// server, whoever started first did. Every user's message pane shows it.
    func openGeneral() async throws {
        let general: Channel
        do {
            general = try await createChannel(
                as: participants[0], id: "general", members: participants.dropFirst().map(\.id))
            lastMessage = "\(participants[0].id) moderates #general"
        } catch ChatError.alreadyExists {
            // A shared server: someone opened it already.
            general = try await ChannelRepository(client: participants[0].client).joinChannel(channelId: "general")
        }
        for participant in participants {
            participant.generalCreatedAt = general.createdAt
            open("general", for: participant)
        }
        await resendWhatWaitedFor("general")
    }

    /// Sends again the messages typed for `channelId` before it existed, or before the user was
    /// among its members — before the server was up, the outbox kept them; on connect it sent
    /// them ahead of the channel's creation (the server answered `notFound`) or of the user's
    /// joining it (`forbidden`, when another user opened it first). Each user's messages of the
    /// channel still sending are waited for first (at most 5 s each), so that no refusal arrives
    /// after this looked.
    func resendWhatWaitedFor(_ channelId: String) async {
        for participant in participants {
            let messages = MessageRepository(client: participant.client)
            for message in messages.unsentMessages where message.channelId == channelId {
                switch await outcome(of: message, for: participant) {
                case .failed(.notFound), .failed(.forbidden): break
                default: continue
                }
                try? await messages.resendMessage(channelId: channelId, messageId: message.messageId)
            }
        }
    }

    /// Counts `participant`'s connection coming up; when it comes up again (the client
    /// reconnected by itself, or `online`), checks that #general is still there.
    func noticeConnection(of participant: Participant) {
        let connected = participant.client.connectionState.snapshot == .connected
        defer { participant.isConnected = connected }
        guard connected, !participant.isConnected else { return }
        if participant.hasConnected { Task { await reopenGeneralIfGone(for: participant) } }
        participant.hasConnected = true
    }

    /// After a reconnect: a server that started over (a new history: restarted in memory,
    /// restored from a backup, a new cluster) no longer has #general, or has one made anew
    /// without `participant`. Opens it again — created, or joined when another user's client
    /// made it first — and sends again what waited for it, saying so. Does nothing where
    /// #general is the one it was (a user who left it, or was removed, stays out).
    func reopenGeneralIfGone(for participant: Participant) async {
        let repository = ChannelRepository(client: participant.client)
        let general: Channel
        let said: String
        do {
            do {
                let found = try await repository.getChannel(channelId: "general")
                guard found.createdAt != participant.generalCreatedAt, found.currentUserMembership == .none
                else { return }
                general = try await repository.joinChannel(channelId: "general")
                said = "the server started over: \(participant.id) joined #general again"
            } catch ChatError.notFound {
                do {
                    general = try await createChannel(as: participant, id: "general", members: [])
                    said = "the server started over, without what it held: \(participant.id) opened #general again"
                } catch ChatError.alreadyExists {
                    general = try await repository.joinChannel(channelId: "general")
                    said = "the server started over: \(participant.id) joined #general again"
                }
            }
        } catch {
            // Offline again, or refused: the next reconnect looks again.
            return
        }
        participant.generalCreatedAt = general.createdAt
        open("general", for: participant)
        await resendWhatWaitedFor("general")
        notice(said)
    }

    /// Says what happened by itself, not as a command's answer: on the redrawn screen of a
    /// terminal, else as a line of its own.
    func notice(_ text: String) {
        lastMessage = text
        if interactive {
            scheduleRedraw()
        } else {
            write("\(text)\n")
        }
    }

    /// Tries to connect `participant` every second until it connects (or the user takes over
    /// with `online`/`offline`), then opens #general if nobody has.
    func keepConnecting(_ participant: Participant) {
        participant.connecting = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.connectRetryInterval)
                guard !Task.isCancelled else { return }
                do {
                    try await participant.client.connect()
                } catch {
                    continue
                }
                participant.online = true
                guard let self else { return }
                if participant.id == participants[0].id, participant.openChannel == nil {
                    do {
                        try await openGeneral()
                    } catch {
                        lastMessage = "! \(Self.words(for: error))"
                    }
                }
                scheduleRedraw()
                return
            }
        }
    }

    /// How often a user whose server could not be reached at start tries again.
    static let connectRetryInterval = Duration.seconds(1)

    /// Shows the panes, runs each line of standard input as a command until `quit` or the end of
    /// input, then stops. Lines are read on a thread of their own, so that the main actor stays
    /// free for deliveries while waiting.
    public func runCommandsFromStandardInput() async {
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
        await quit()
    }

    /// Stops, saying what becomes of the messages still sending: kept in the cache file for the
    /// next start (``keepsMessagesSending``), or gone.
    public func quit() async {
        let sending = await stop()
        for (user, count) in sending.sorted(by: { $0.key < $1.key }) where count > 0 {
            let messages = count == 1 ? "1 message" : "\(count) messages"
            if let file = keepsMessagesSending {
                write("\(user): \(messages) still sending, kept in \(file); sent when you start again as \(user).\n")
            } else {
                write("\(user): \(messages) still sending, not sent: nothing keeps them after quitting.\n")
            }
        }
    }

    /// Ends the observations and closes every user's client: what their caches hold is written
    /// (with `.sqlite` persistence, the messages still sending stay in the file). Returns, per
    /// user, how many messages were still sending.
    @discardableResult
    public func stop() async -> [String: Int] {
        var sending: [String: Int] = [:]
        for participant in participants {
            participant.connecting?.cancel()
            participant.tokens.forEach { $0.invalidate() }
            sending[participant.id] =
                MessageRepository(client: participant.client).unsentMessages.filter {
                    $0.syncState == .syncing
                }.count
            await participant.client.close()
        }
        return sending
    }
}
