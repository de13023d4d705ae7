import ChatAPI
import ChatServer
import Foundation
@testable import LiveChannels
import LiveCore
import Locking
import TestSupport

/// One seeded multi-client scenario: users on several devices open live handles, then a seeded
/// sequence of operations and faults runs interleaved (many requests in flight at once), then the
/// scenario heals (faults spent, everyone connected and synchronized, nothing loading) and every
/// handle is compared with the server's view.
///
/// The seed decides the operations, their targets and how they are grouped; the interleaving of
/// concurrent requests is up to the scheduler, so a seed reproduces a failure often, not always
/// (run it a few times with `CONVERGENCE_SEED`).
///
/// Only public API is used — repositories and live handles on the client side, the console,
/// inspection and fault calls on the server side — but for the client's message retention limit
/// (the `tinyRetention` variation).
final class ConvergenceScenario {
    /// One way the client's view differs from the server's after healing.
    struct Divergence: CustomStringConvertible {
        /// What diverged (`list`, `object`, `members`, `messages`, `unread`, `total`, `stuck`, ...).
        let category: String
        let detail: String

        var description: String { "[\(category)] \(detail)" }
    }

    let seed: UInt64
    var random: SeededGenerator
    let clock = ManualClock()
    let server: ChatServer
    let users: [String]
    let channelPool = ["c0", "c1", "c2", "c3", "c4", "c5"]
    private(set) var devices: [Device] = []
    /// What happened, in order, for reproducing a failure (`CONVERGENCE_VERBOSE=1` prints it).
    var log: [String] = [] {
        didSet {
            if Self.tracing, let line = log.last {
                FileHandle.standardError.write(Data("seed \(seed): \(line)\n".utf8))
            }
        }
    }
    /// `CONVERGENCE_TRACE=1` prints each operation and healing phase as it happens (to find a hang).
    static let tracing = ProcessInfo.processInfo.environment["CONVERGENCE_TRACE"] != nil

    /// Requests in flight, awaited at the end of some steps and before healing, each with the
    /// operation that started it (named when it does not end).
    var pending: [(label: String, task: Task<Void, Never>)] = []
    /// "user|channel" pairs for which an operation that can end the membership was issued.
    private var membershipMayLapse: Set<String> = []
    /// Devices with `failNext` faults armed (they are spent and the device reconnects on healing).
    private var failNextArmed: [String: Int] = [:]
    /// Connect failures armed per device (bounded below the reconnect policy's attempts).
    private var connectFailuresArmed: [String: Int] = [:]
    /// Conversation ids the scenario may create.
    private var conversationIds: [String] = []
    /// The messages created through the outbox: each must end on the server exactly once, or
    /// `.failed` with a reason on its device.
    private var created: [(device: String, channelId: String, messageId: String)] = []
    private var nextName = 0
    /// How many checks of each kind the last comparison made (to see the test is not vacuous).
    private(set) var checks: [String: Int] = [:]
    /// What went wrong while a fresh client loaded the expected lists.
    private var oracleProblems: [String] = []

    /// How the clients reach the server.
    let door: Door
    /// The variations this seed runs with (each drawn by the seed).
    /// - `tinyHistory`: the server keeps 3 messages per channel (clients keep what they had).
    /// - `clockJumps`: server time sometimes jumps an hour or more than a day (mutes end,
    ///   replay logs are swept: devices must resync).
    /// - `deepPaging`: lists are paged to their end, page after page.
    /// - `restarts`: devices cache in SQLite files and are sometimes restarted (the client is
    ///   closed, a new one opens the same file and the handles are opened again).
    let tinyHistory: Bool
    let clockJumps: Bool
    let deepPaging: Bool
    let restarts: Bool
    /// - `tinyRetention`: clients keep only 0–5 messages in memory beyond what live handles show
    ///   (the rest leaves memory, a channel at a time).
    let tinyRetention: Bool
    /// - `offlinePeriods`: devices go offline for several steps and come back, with handles
    ///   opened and requests in flight around it, sends while offline, `synchronize()` around
    ///   reconnects, pages of 2 loaded deep and server time jumping past the replay logs'
    ///   retention while a device is away (see `ConvergenceScenario+Offline.swift`).
    let offlinePeriods: Bool
    /// Draws the `offlinePeriods` operations (a generator of their own: the other operations of a
    /// seed stay what they were).
    var offlineRandom: SeededGenerator
    /// How many times each variation acted.
    var variationCounts: [String: Int] = [:]
    /// The cache files of the devices (with `restarts`).
    private let files = TemporaryFiles()
    /// The clients' message retention limit.
    private let messageRetention: Int

    init(seed: UInt64, door: Door = .embedded) {
        self.seed = seed
        self.door = door
        random = SeededGenerator(seed: seed)
        var users = ["alice", "bob", "carol"]
        if Bool.random(using: &random) { users.append("dave") }
        self.users = users
        let smallLog = Int.random(in: 0..<10, using: &random) == 0
        // The variations are drawn from a generator of their own, so that each seed's operations
        // stay what they were before the variations existed.
        var variations = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        tinyHistory = Int.random(in: 0..<8, using: &variations) == 0
        clockJumps = Int.random(in: 0..<6, using: &variations) == 0
        deepPaging = Int.random(in: 0..<6, using: &variations) == 0
        restarts = door == .embedded && Int.random(in: 0..<6, using: &variations) == 0
        tinyRetention = Int.random(in: 0..<4, using: &variations) == 0
        messageRetention =
            tinyRetention ? Int.random(in: 0...5, using: &variations) : SyncEngine.defaultMessageRetention
        offlinePeriods = Int.random(in: 0..<2, using: &variations) == 0
        offlineRandom = SeededGenerator(seed: seed &* 0xD1B5_4A32_D192_ED03 &+ 7)
        var configuration = ServerConfiguration(
            eventLogCapacity: smallLog ? 6 : 1_024, messagesPerChannel: tinyHistory ? 3 : 10_000)
        configuration.typingExpiry = 5
        server = ChatServer(clock: clock, configuration: configuration)
        if smallLog { log.append("server keeps only 6 events per device (reconnects resync)") }
        if tinyHistory {
            log.append("server keeps only 3 messages per channel")
            variationCounts["tiny-history seeds"] = 1
        }
        if clockJumps { log.append("server time jumps") }
        if deepPaging { log.append("lists are paged deep") }
        if restarts { log.append("devices cache in SQLite and restart") }
        if offlinePeriods {
            log.append("devices go offline for a while")
            variationCounts["offline-period seeds"] = 1
        }
        if tinyRetention {
            log.append("clients keep \(messageRetention) messages in memory beyond what is shown")
            variationCounts["tiny-retention seeds"] = 1
        }
    }

    /// A client of `userId` on `deviceId`: in memory, or on the device's cache file.
    private func makeClient(_ userId: String, _ deviceId: String) -> ChatClient {
        let transport = door.transport(server, userId: userId, deviceId: deviceId)
        guard restarts else {
            return ChatClient(transport: transport, reconnectPolicy: .immediate, messageRetention: messageRetention)
        }
        return ChatClient(
            transport: transport, persistence: .sqlite(files.file("\(userId)-\(deviceId).sqlite")),
            reconnectPolicy: .immediate,
            messageRetention: messageRetention)
    }

    // MARK: Running

    /// Runs the scenario and returns every divergence found after healing.
    func run() async -> [Divergence] {
        var deviceKeys = users.map { ($0, "phone") }
        deviceKeys.insert(("alice", "tablet"), at: 1)
        let earlyDevice =
            Int.random(in: 0..<10, using: &random) == 0 ? Int.random(in: 0..<deviceKeys.count, using: &random) : nil
        for (index, key) in deviceKeys.enumerated() {
            let client = makeClient(key.0, key.1)
            let device = Device(userId: key.0, deviceId: key.1, client: client)
            devices.append(device)
            if index == earlyDevice {
                log.append("\(device.name) opens its handles before connecting")
                openInitialHandles(on: device)
            }
        }
        for device in devices {
            do {
                try await device.client.connect()
            } catch {
                return [Divergence(category: "setup", detail: "\(device.name) could not connect: \(error)")]
            }
        }
        for (index, device) in devices.enumerated() where index != earlyDevice {
            openInitialHandles(on: device)
        }

        let steps = Int.random(in: 15..<40, using: &random)
        for step in 0..<steps {
            let count = Int.random(in: 1...5, using: &random)
            log.append("step \(step)")
            for _ in 0..<count { performRandomOperation() }
            if offlinePeriods { performOfflineOperations() }
            clock.advance(by: Double(Int.random(in: 1...40, using: &random)) / 1_000)
            if clockJumps, Int.random(in: 0..<8, using: &random) == 0 {
                let jump: TimeInterval = Bool.random(using: &random) ? 3_700 : 90_000
                log.append("server time jumps \(Int(jump)) s")
                variationCounts["clock jumps", default: 0] += 1
                clock.advance(by: jump)
            }
            if restarts, Int.random(in: 0..<10, using: &random) == 0 {
                await restart(devices.randomElement(using: &random)!)
            }
            // With devices offline, calls may wait for their connection: a short wait here.
            if Bool.random(using: &random) { await awaitPending(seconds: offlinePeriods ? 1 : 40) }
        }

        log.append("heal")
        var divergences = await heal()
        log.append("compare")
        // Compare twice, a synchronize and settle apart: only what stays different counts, so a
        // value still on its way cannot pass for a divergence.
        let serverBefore = serverFingerprint()
        let expected = await expectedLists()
        divergences += oracleProblems.map { .init(category: "stuck-paging", detail: $0) }
        var first = compareAll(expected)
        if !first.isEmpty {
            for device in devices { _ = await Settling.synchronize(device.client) }
            for device in devices { _ = await settle(device) }
            let transient = first.count
            first = compareAll(expected)
            if transient != first.count {
                log.append("\(transient - first.count) divergence(s) healed on a second look")
            }
        }
        divergences += first
        // Healing waits for every request: a server that changes while the views are compared
        // means a request outlived it (the expectation may then be stale).
        let serverAfter = serverFingerprint()
        if serverAfter != serverBefore {
            let changed = zip(serverBefore, serverAfter).filter { $0 != $1 }.map { "\($0) → \($1)" }
            divergences.append(.init(category: "late-write", detail: "the server changed after healing: \(changed)"))
        }
        // How often each variation ran (the summary shows the soak is not vacuous).
        for (variation, count) in variationCounts { checks[variation, default: 0] += count }
        for device in devices { await device.client.disconnect() }
        return divergences
    }

    /// Awaits the requests in flight. Meanwhile server time moves on in small steps, so events
    /// held back by `delayEvents` are released (a call returns only once the events before its
    /// response are applied, so with late events it waits for time to pass).
    ///
    /// A call may wait for the connection to come back (a device offline, its connects failing):
    /// those that have not ended within `seconds` of server time stay pending, for the next
    /// wait — healing waits again after connecting every device.
    /// - Returns: `false` if some did not finish within `seconds` of server time.
    @discardableResult
    func awaitPending(seconds: Double = 40) async -> Bool {
        let tasks = pending
        pending = []
        let flag = Flag()
        let ended = tasks.map { _ in Flag() }
        Task {
            await withTaskGroup(of: Void.self) { group in
                for (task, done) in zip(tasks, ended) {
                    group.addTask {
                        await task.task.value
                        done.set()
                    }
                }
            }
            flag.set()
        }
        for _ in 0..<Int(seconds / 0.002) {
            for _ in 0..<50 {
                if flag.isSet {
                    variationCounts["calls that returned", default: 0] += tasks.count
                    return true
                }
                await Task.yield()
            }
            clock.advance(by: 0.002)
        }
        if flag.isSet {
            variationCounts["calls that returned", default: 0] += tasks.count
            return true
        }
        let running = zip(tasks, ended).filter { !$1.isSet }.map(\.0)
        log.append("calls still running after \(seconds) s of server time: \(running.map(\.label))")
        pending = running + pending
        return false
    }

    func spawn(_ body: @escaping @Sendable () async -> Void) {
        pending.append((log.last ?? "setup", Task { await body() }))
    }

    // MARK: Handles

    /// The channel lists a device can open: name, query.
    func listQuery(_ index: Int, for device: Device) -> (name: String, query: ChannelListQuery) {
        let me = device.userId
        let queries = device.channels.getChannels()
        switch index {
        case 0:
            return (
                "my communities",
                queries.communityType(with: CommunityChannelQueryBuilder(filter: .userIsMember)).listQuery
            )
        case 1:
            let pageSize = [2, 3, 20].randomElement(using: &random)!
            return (
                "mine by lastMessageAt desc (page \(pageSize))",
                ChannelListQuery(
                    filter: .containMembers(userIds: [me]), sort: [Sorting(key: .lastMessageAt, isAscending: false)],
                    pageSize: pageSize)
            )
        case 2:
            return (
                "by types community/live/conversation",
                queries.byTypes(
                    with: ByTypesChannelQueryBuilder(
                        types: [.community, .live, .conversation], channelQueryFilter: .all)
                ).listQuery
            )
        case 3:
            let pageSize = [2, 4, 20].randomElement(using: &random)!
            return (
                "all visible by channelId (page \(pageSize))",
                ChannelListQuery(filter: .all, sort: [Sorting(key: .channelId, isAscending: true)], pageSize: pageSize)
            )
        case 4:
            return ("live channels", queries.liveType(with: LiveChannelQueryBuilder()).listQuery)
        case 5:
            return (
                "communities I am not in",
                queries.communityType(with: CommunityChannelQueryBuilder(filter: .userIsNotMember)).listQuery
            )
        default:
            return (
                "color red by displayName (page 2)",
                ChannelListQuery(
                    filter: .equal("color", to: "red"), sort: [Sorting(key: .displayName, isAscending: true)],
                    pageSize: 2)
            )
        }
    }

    private static let listQueryCount = 7

    func openList(_ index: Int, on device: Device) {
        let (name, query) = listQuery(index, for: device)
        let list = device.channels.getChannels(query: query)
        device.lists.append(.init(name: name, query: query, list: list))
        log.append("\(device.name) opens list '\(name)'")
    }

    func openObject(_ channelId: String, on device: Device) {
        device.objects.append(.init(channelId: channelId, object: device.channels.getChannel(channelId)))
        log.append("\(device.name) opens channel object \(channelId)")
    }

    private func openMemberList(_ channelId: String, on device: Device) {
        let filter: MemberFilter = [.all, .all, .mute, .ban].randomElement(using: &random)!
        let sort: MemberSort = Bool.random(using: &random) ? .firstCreated : .lastCreated
        let pageSize = [2, 20].randomElement(using: &random)!
        let participation = ChannelParticipation(client: device.client, channelId: channelId)
        device.memberLists.append(
            .init(
                channelId: channelId, filter: filter, sort: sort,
                list: participation.getMembers(filter: filter, sortBy: sort, pageSize: pageSize),
                memberAtOpen: isMember(device.userId, channelId)))
        log.append("\(device.name) opens member list of \(channelId) (\(filter), \(sort), page \(pageSize))")
    }

    private func openMessageList(_ channelId: String, on device: Device) {
        let pageSize = [3, 30].randomElement(using: &random)!
        device.messageLists.append(
            .init(
                channelId: channelId, pageSize: pageSize,
                list: device.messages.getMessages(channelId: channelId, pageSize: pageSize),
                memberAtOpen: isMember(device.userId, channelId)))
        log.append("\(device.name) opens message list of \(channelId) (page \(pageSize))")
    }

    private func openInitialHandles(on device: Device) {
        for index in 0..<4 { openList(index, on: device) }
        if Bool.random(using: &random) { openList(Int.random(in: 4..<Self.listQueryCount, using: &random), on: device) }
        for _ in 0..<2 { openObject(channelPool.randomElement(using: &random)!, on: device) }
        if Bool.random(using: &random) { openMemberList(channelPool.randomElement(using: &random)!, on: device) }
        if Bool.random(using: &random) { openMessageList(channelPool.randomElement(using: &random)!, on: device) }
        device.totals.append(device.channels.getTotalUnreadCount())
    }

    private func isMember(_ userId: String, _ channelId: String) -> Bool {
        server.members(channelId: channelId).contains { $0.userId == userId && $0.membership == .member }
    }

    // MARK: Operations

    private func name() -> String {
        nextName += 1
        return ["Ops", "Red", "Blue", "Crew", "Lobby", "Zeta"].randomElement(using: &random)! + " \(nextName)"
    }

    func metadata() -> [String: JSON] {
        var metadata: [String: JSON] = ["color": .string(["red", "blue"].randomElement(using: &random)!)]
        if Bool.random(using: &random) { metadata["n"] = .number(Double(Int.random(in: 0..<100, using: &random))) }
        return metadata
    }

    private func otherUsers(than userId: String, upTo limit: Int) -> [String] {
        let others = users.filter { $0 != userId }.shuffled(using: &random)
        return Array(others.prefix(Int.random(in: 0...limit, using: &random)))
    }

    func anyChannel() -> String {
        if !conversationIds.isEmpty, Int.random(in: 0..<5, using: &random) == 0 {
            return conversationIds.randomElement(using: &random)!
        }
        return channelPool.randomElement(using: &random)!
    }

    private func mayLapse(_ userId: String, _ channelId: String) {
        membershipMayLapse.insert("\(userId)|\(channelId)")
    }

    // swiftlint:disable:next function_body_length cyclomatic_complexity
    private func performRandomOperation() {
        let device = devices.randomElement(using: &random)!
        let client = device.client
        let me = device.userId
        let server = server
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<8:
            let id = channelPool.randomElement(using: &random)!
            let members = otherUsers(than: me, upTo: 2)
            let (displayName, metadata) = (Bool.random(using: &random) ? name() : nil, metadata())
            let asHandle = Bool.random(using: &random)
            log.append("\(device.name) creates community \(id) with \(members)\(asHandle ? " (handle)" : "")")
            spawn {
                let builder = CommunityChannelBuilder()
                builder.setId(id)
                builder.setUserIds(members)
                if let displayName { builder.setDisplayName(displayName) }
                builder.setMetadata(metadata)
                let repository = ChannelRepository(client: client)
                if asHandle {
                    // The handle's request is awaited like the others (it may start late on a
                    // busy machine: healing must not begin before it is answered).
                    _ = await Settling.idle(repository.createChannel().community(with: builder))
                } else {
                    _ = try? await repository.createChannel(with: builder)
                }
            }
        case 8..<13:
            let id = channelPool.randomElement(using: &random)!
            let members = otherUsers(than: me, upTo: 2)
            let displayName = name()
            log.append("\(device.name) creates live \(id) with \(members)")
            spawn {
                let builder = LiveChannelBuilder()
                builder.setId(id)
                builder.setUserIds(members)
                builder.setDisplayName(displayName)
                _ = try? await ChannelRepository(client: client).createChannel(with: builder)
            }
        case 13..<16:
            var chosen = otherUsers(than: me, upTo: 2)
            if chosen.isEmpty { chosen = [users.first { $0 != me }!] }
            let members = chosen
            let id = "dm-" + (members + [me]).sorted().joined(separator: "-")
            if !conversationIds.contains(id) { conversationIds.append(id) }
            log.append("\(device.name) creates conversation \(id)")
            spawn {
                let builder = ConversationChannelBuilder()
                builder.setId(id)
                builder.setUserIds(members)
                _ = try? await ChannelRepository(client: client).createChannel(with: builder)
            }
        case 16..<24:
            let id = anyChannel()
            let asHandle = Bool.random(using: &random)
            log.append("\(device.name) joins \(id)\(asHandle ? " (handle)" : "")")
            if asHandle {
                let handle = device.channels.joinChannel(id)
                spawn { _ = await Settling.idle(handle) }
            } else {
                spawn { _ = try? await ChannelRepository(client: client).joinChannel(channelId: id) }
            }
        case 24..<30:
            let id = anyChannel()
            mayLapse(me, id)
            log.append("\(device.name) leaves \(id)")
            spawn { try? await ChannelRepository(client: client).leaveChannel(id) }
        case 30..<36:
            let id = anyChannel()
            let displayName = Bool.random(using: &random) ? name() : nil
            let metadata = displayName == nil || Bool.random(using: &random) ? metadata() : nil
            let asHandle = Bool.random(using: &random)
            log.append(
                "\(device.name) updates \(id): name \(displayName ?? "-"), metadata \(metadata.map { "\($0)" } ?? "-")\(asHandle ? " (handle)" : "")"
            )
            spawn {
                let updater = ChannelUpdateBuilder(channelId: id, client: client)
                if let displayName { updater.setDisplayName(displayName) }
                if let metadata { updater.setMetadata(metadata) }
                if asHandle {
                    _ = await Settling.idle(updater.update())
                } else {
                    _ = try? await ChannelRepository(client: client).updateChannel(with: updater)
                }
            }
        case 36..<39:
            let id = anyChannel()
            let changes = ChannelChanges(
                channelId: id, displayName: name(), metadata: Bool.random(using: &random) ? metadata() : nil)
            log.append("console updates \(id): \(changes.displayName ?? "-")")
            spawn { _ = try? await server.updateChannel(changes) }
        case 39:
            let id = anyChannel()
            log.append("console deletes \(id)")
            spawn { try? await server.deleteChannel(id) }
        case 40..<45:
            let id = anyChannel()
            let mention = Int.random(in: 0..<4, using: &random) == 0 ? [users.randomElement(using: &random)!] : []
            log.append("\(device.name) sends a message in \(id)")
            spawn {
                _ = try? await MessageRepository(client: client).sendMessage(
                    channelId: id, text: "m", mentionedUserIds: mention)
            }
        case 45..<50:
            // Through the outbox: returns at once, online or offline; sent when connected.
            let id = anyChannel()
            let mention = Int.random(in: 0..<4, using: &random) == 0 ? [users.randomElement(using: &random)!] : []
            do {
                let message = try MessageRepository(client: client).createMessage(
                    channelId: id, text: "o", mentionedUserIds: mention)
                created.append((device.name, id, message.messageId))
                log.append(
                    "\(device.name) creates message \(message.messageId) in \(id)\(device.isOffline ? " (offline)" : "")"
                )
                variationCounts["outbox messages created", default: 0] += 1
                if device.isOffline { variationCounts["outbox messages created offline", default: 0] += 1 }
            } catch {
                log.append("\(device.name) could not create a message in \(id): \(error)")
            }
        case 50..<52:
            let id = anyChannel()
            let sender = users.randomElement(using: &random)!
            log.append("console sends a message in \(id) as \(sender)")
            spawn { _ = try? await server.sendMessage(as: sender, channelId: id, text: "console") }
        case 52..<55:
            let id = anyChannel()
            log.append("\(device.name) starts reading \(id)")
            spawn { try? await ChannelParticipation(client: client, channelId: id).startReading() }
        case 55..<57:
            let id = anyChannel()
            log.append("\(device.name) stops reading \(id)")
            spawn { try? await ChannelParticipation(client: client, channelId: id).stopReading() }
        case 57..<62:
            let id = anyChannel()
            let others = otherUsers(than: me, upTo: 2)
            log.append("\(device.name) adds \(others) to \(id)")
            spawn { _ = try? await ChannelParticipation(client: client, channelId: id).addMembers(others) }
        case 62..<66:
            let id = anyChannel()
            let target = users.randomElement(using: &random)!
            mayLapse(target, id)
            log.append("\(device.name) removes \(target) from \(id)")
            spawn { _ = try? await ChannelParticipation(client: client, channelId: id).removeMembers([target]) }
        case 66..<68:
            let id = anyChannel()
            let target = users.randomElement(using: &random)!
            mayLapse(target, id)
            log.append("\(device.name) bans \(target) in \(id)")
            spawn { _ = try? await ChannelModeration(client: client, channelId: id).banMembers([target]) }
        case 68..<70:
            let id = anyChannel()
            let target = users.randomElement(using: &random)!
            log.append("\(device.name) unbans \(target) in \(id)")
            spawn { _ = try? await ChannelModeration(client: client, channelId: id).unbanMembers([target]) }
        case 70..<72:
            let id = anyChannel()
            let target = users.randomElement(using: &random)!
            let mute = Bool.random(using: &random)
            log.append("\(device.name) \(mute ? "mutes" : "unmutes") \(target) in \(id)")
            spawn {
                let moderation = ChannelModeration(client: client, channelId: id)
                if mute {
                    _ = try? await moderation.muteMembers([target], mutePeriod: 3_600)
                } else {
                    _ = try? await moderation.unmuteMembers([target])
                }
            }
        case 72..<76:
            openList(Int.random(in: 0..<Self.listQueryCount, using: &random), on: device)
        case 76..<80:
            openObject(anyChannel(), on: device)
        case 80..<82:
            openMemberList(anyChannel(), on: device)
        case 82..<84:
            openMessageList(anyChannel(), on: device)
        case 84..<87:
            guard !device.lists.isEmpty else { return }
            let open = device.lists.randomElement(using: &random)!
            if deepPaging {
                pageDeep(open, on: device, counted: "deep pagings")
            } else {
                log.append("\(device.name) asks for the next page of '\(open.name)'")
                open.list.nextPage()
            }
        case 87..<90:
            log.append("fault: drop \(device.name)")
            server.faults.dropConnection(userId: me, deviceId: device.deviceId)
        case 90..<92:
            let count = Int.random(in: 1...4, using: &random)
            log.append("fault: duplicate the next \(count) events of \(device.name)")
            server.faults.duplicateNextEvents(count, userId: me, deviceId: device.deviceId)
        case 92..<94:
            let seconds = Double(Int.random(in: 5...80, using: &random)) / 1_000
            log.append("fault: delay events of \(device.name) by \(seconds)s")
            server.faults.delayEvents(by: seconds, userId: me, deviceId: device.deviceId)
        case 94..<97:
            let count = Int.random(in: 1...2, using: &random)
            failNextArmed[device.name, default: 0] += count
            log.append("fault: fail the next \(count) requests of \(device.name)")
            server.faults.failNext(count, userId: me, deviceId: device.deviceId)
        case 97..<99:
            let count = Int.random(in: 1...3, using: &random)
            guard connectFailuresArmed[device.name, default: 0] + count <= 10 else { return }
            connectFailuresArmed[device.name, default: 0] += count
            log.append("fault: fail the next \(count) connects of \(device.name)")
            server.faults.failNextConnects(count, userId: me, deviceId: device.deviceId)
        default:
            log.append("\(device.name) disconnects and connects again")
            spawn {
                await client.disconnect()
                try? await client.connect()
            }
        }
    }

    /// Restarts a device: its client is closed (the cache written, the file released), a new
    /// client opens the same file and connects (resuming after the stored event, or resyncing),
    /// and the device's handles are opened again on it.
    private func restart(_ device: Device) async {
        log.append("\(device.name) restarts")
        variationCounts["restarts", default: 0] += 1
        await awaitPending()
        await device.client.close()
        device.isOffline = false
        let old = device.snapshotOfHandles()
        device.replaceClient(makeClient(device.userId, device.deviceId))
        for open in old.lists {
            device.lists.append(
                .init(name: open.name, query: open.query, list: device.channels.getChannels(query: open.query)))
        }
        for open in old.objects {
            device.objects.append(.init(channelId: open.channelId, object: device.channels.getChannel(open.channelId)))
        }
        for open in old.memberLists {
            let participation = ChannelParticipation(client: device.client, channelId: open.channelId)
            device.memberLists.append(
                .init(
                    channelId: open.channelId, filter: open.filter, sort: open.sort,
                    list: participation.getMembers(filter: open.filter, sortBy: open.sort, pageSize: 20),
                    memberAtOpen: open.memberAtOpen))
        }
        for open in old.messageLists {
            device.messageLists.append(
                .init(
                    channelId: open.channelId, pageSize: open.pageSize,
                    list: device.messages.getMessages(channelId: open.channelId, pageSize: open.pageSize),
                    memberAtOpen: open.memberAtOpen))
        }
        for _ in old.totals { device.totals.append(device.channels.getTotalUnreadCount()) }
        // Connecting resumes the device's events, which a fault may hold back until server time
        // passes: awaited as any call is, with the clock moving (awaited inline, the connect
        // waited for good for events delayed on a clock nobody moved — the soak's seed 44998).
        log.append("\(device.name) connects after its restart")
        let client = device.client
        spawn { try? await client.connect() }
        await awaitPending()
    }

    // MARK: Healing

    /// Brings every device back to a quiet, connected, synchronized state: requests finished,
    /// late events released, injected failures spent, every handle done loading.
    private func heal() async -> [Divergence] {
        var problems: [Divergence] = []
        // Calls may wait for a device's connection to come back: connect every device and
        // wait again (a device's own sequence of connects and disconnects may end offline).
        var finished = await awaitPending()
        for _ in 0..<3 where !finished {
            for device in devices {
                if let problem = await ensureConnected(device) { problems.append(problem) }
            }
            finished = await awaitPending()
        }
        if !finished {
            problems.append(
                .init(
                    category: "stuck",
                    detail: "calls did not return once their device was connected again: \(pending.map(\.label))"))
        }
        log.append("heal: requests done")
        clock.advance(by: 10)
        server.runHousekeeping()
        for device in devices {
            if let problem = await ensureConnected(device) { problems.append(problem) }
        }
        // Spend leftover `failNext` faults with harmless requests, then reconnect those devices:
        // whatever failed because of them retries after the reconnect.
        for device in devices where failNextArmed[device.name, default: 0] > 0 {
            let users = UserRepository(client: device.client)
            for _ in 0..<failNextArmed[device.name, default: 0] {
                _ = try? await users.getUser(userId: device.userId)
            }
            log.append("heal: reconnect \(device.name) after spending its failNext faults")
            // Disconnect and connect explicitly: after a dropped connection the client learns of
            // the drop only when its event loop gets to it, so its state may still read
            // `.connected` here and the reconnect would race the checks.
            await device.client.disconnect()
            if let problem = await ensureConnected(device) { problems.append(problem) }
        }
        clock.advance(by: 10)
        server.runHousekeeping()
        for device in devices where !(await drainEmissions(device)) {
            let left = device.client.outbox.messages.filter { $0.syncState == .syncing }.map(\.messageId)
            let connection = device.client.connectionState.snapshot.map { "\($0)" } ?? "unknown"
            problems.append(
                .init(
                    category: "stuck",
                    detail: "\(device.name): the outbox still sends \(left) after 10 s (connection: \(connection))"))
        }
        for device in devices {
            if await Settling.synchronize(device.client) {
                variationCounts["synchronize() calls that returned after healing", default: 0] += 1
            } else {
                problems.append(.init(category: "stuck", detail: "\(device.name): synchronize() did not return"))
            }
        }
        for device in devices {
            problems += await settle(device)
        }
        // Loads that finished may have been answered before events still queued: synchronize again.
        for device in devices { _ = await Settling.synchronize(device.client) }
        return problems
    }

    /// Waits (at most 10 s) until the device's outbox has no syncing message left, waking its
    /// sender past any backoff; whether it emptied.
    private func drainEmissions(_ device: Device) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while device.client.outbox.messages.contains(where: { $0.syncState == .syncing }) {
            if ContinuousClock.now >= deadline { return false }
            device.client.outbox.wake()
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    /// Every message created through an outbox is on the server exactly once, or `.failed` (with
    /// its reason) on its device — never both, never lost, never doubled. With a tiny history a
    /// stored message may have been dropped since: absent then counts as stored if the channel
    /// has dropped messages.
    private func compareOutboxes() -> [Divergence] {
        var found: [Divergence] = []
        var keptByChannel: [String: [Message]] = [:]
        for (deviceName, channelId, messageId) in created {
            let kept = keptByChannel[channelId] ?? server.messages(channelId: channelId)
            keptByChannel[channelId] = kept
            let copies = kept.filter { $0.messageId == messageId }
            let device = devices.first { $0.name == deviceName }!
            let local = device.client.outbox.messages.first { $0.messageId == messageId }
            checks["outbox messages checked", default: 0] += 1
            let prefix = "\(deviceName) message \(messageId) in \(channelId)"
            switch (copies.count, local?.syncState) {
            case (1, nil):
                checks["outbox messages stored once", default: 0] += 1
                if copies[0].userId != device.userId {
                    found.append(.init(category: "outbox", detail: "\(prefix): stored as \(copies[0].userId)'s"))
                }
            case (0, .failed?):
                checks["outbox messages failed with a reason", default: 0] += 1
            case (0, nil):
                let dropped = (server.channel(channelId)?.messageCount ?? 0) > kept.count
                if !dropped { found.append(.init(category: "outbox", detail: "\(prefix): lost")) }
            case (let count, let state):
                found.append(
                    .init(
                        category: "outbox",
                        detail: "\(prefix): \(count) on the server, \(state.map { "\($0)" } ?? "not") in the outbox"))
            }
        }
        return found
    }

    private func ensureConnected(_ device: Device) async -> Divergence? {
        for _ in 0..<40 {
            switch device.client.connectionState.snapshot {
            case .connected?:
                return nil
            case .disconnected?, nil:
                try? await device.client.connect()
            case .connecting?, .reconnecting?:
                _ = await Settling.connection(of: device.client, in: [.connected, .disconnected])
            }
        }
        return .init(
            category: "stuck",
            detail: "\(device.name) does not connect: \(String(describing: device.client.connectionState.snapshot))")
    }

    private func settle(_ device: Device) async -> [Divergence] {
        var stuck: [String] = []
        for open in device.lists where !(await Settling.idle(open.list)) { stuck.append("list '\(open.name)'") }
        for open in device.objects where !(await Settling.idle(open.object)) {
            stuck.append("object \(open.channelId)")
        }
        for open in device.memberLists where !(await Settling.idle(open.list)) {
            stuck.append("member list \(open.channelId)")
        }
        for open in device.messageLists where !(await Settling.idle(open.list)) {
            stuck.append("message list \(open.channelId)")
        }
        for total in device.totals where !(await Settling.idle(total)) { stuck.append("total unread") }
        let handles =
            device.lists.count + device.objects.count + device.memberLists.count + device.messageLists.count
            + device.totals.count
        variationCounts["handles done loading after healing", default: 0] += handles - stuck.count
        let state = String(describing: device.client.connectionState.snapshot)
        return stuck.map {
            .init(
                category: "stuck", detail: "\(device.name): \($0) still .loading after healing (connection: \(state))")
        }
    }

    // MARK: Comparing

    /// Every channel the scenario may have touched as the console sees it, with its members.
    private func serverFingerprint() -> [String] {
        (channelPool + conversationIds).map { id in
            let channel = server.channel(id).map { "\(ChannelView($0))" } ?? "none"
            let members = server.members(channelId: id).map { "\($0.userId):\($0.membership):\($0.isMuted)" }
            return "\(id) \(channel) \(members)"
        }
    }

    /// What a fresh client of each user (on a device of its own) lists for each open query,
    /// loaded to the end (`complete == false` when that failed).
    private func expectedLists() async -> [String: [ChannelListQuery: (items: [Channel], complete: Bool)]] {
        var oracles: [String: ChatClient] = [:]
        var expectedLists: [String: [ChannelListQuery: (items: [Channel], complete: Bool)]] = [:]
        for device in devices {
            for open in device.lists {
                if expectedLists[device.userId]?[open.query] != nil { continue }
                let oracle: ChatClient
                if let existing = oracles[device.userId] {
                    oracle = existing
                } else {
                    oracle = ChatClient(
                        transport: server.connection(userId: device.userId, deviceId: "oracle"),
                        reconnectPolicy: .immediate)
                    try? await oracle.connect()
                    oracles[device.userId] = oracle
                }
                let loaded = await loadFully(open.query, on: oracle)
                expectedLists[device.userId, default: [:]][open.query] = loaded
                for channel in loaded.items {
                    let now = server.channel(channel.channelId, as: device.userId).map(ChannelView.init)
                    if now != ChannelView(channel) {
                        log.append(
                            "oracle of \(device.userId) loaded \(ChannelView(channel)) for '\(open.name)'; server \(now.map { "\($0)" } ?? "invisible")"
                        )
                    }
                }
            }
        }
        for oracle in oracles.values { await oracle.disconnect() }
        return expectedLists
    }

    private func compareAll(
        _ expectedLists: [String: [ChannelListQuery: (items: [Channel], complete: Bool)]]
    ) -> [Divergence] {
        var divergences: [Divergence] = []
        checks = [:]
        divergences += compareOutboxes()
        for device in devices {
            for open in device.lists {
                guard let expected = expectedLists[device.userId]?[open.query] else { continue }
                divergences += compareList(open, on: device, expected: expected)
            }
            for open in device.objects { divergences += compareObject(open, on: device) }
            for open in device.memberLists { divergences += compareMembers(open, on: device) }
            for open in device.messageLists { divergences += compareMessages(open, on: device) }
            for message in device.client.outbox.messages where message.syncState == .syncing {
                divergences.append(
                    .init(
                        category: "outbox", detail: "\(device.name): \(message.messageId) still syncing after healing"))
            }
            let total = server.totalUnreadCount(userId: device.userId)
            checks["totals", default: 0] += 1
            if total > 0 { checks["nonzero totals", default: 0] += 1 }
            for object in device.totals where object.snapshot != total {
                divergences.append(
                    .init(
                        category: "total",
                        detail:
                            "\(device.name): getTotalUnreadCount() shows \(object.snapshot.map(String.init) ?? "nil"), server \(total) (\(unreadBreakdown(device.userId)))"
                    ))
            }
            if device.channels.totalUnreadCount != total {
                divergences.append(
                    .init(
                        category: "total",
                        detail:
                            "\(device.name): totalUnreadCount is \(device.channels.totalUnreadCount), server \(total) (\(unreadBreakdown(device.userId)))"
                    ))
            }
        }
        return divergences
    }

    private func status(_ data: DataStatus, _ loading: LoadingStatus, _ error: (any Error)?) -> String {
        "\(data)/\(loading)" + (error.map { ", error: \($0)" } ?? "")
    }

    private func unreadBreakdown(_ userId: String) -> String {
        let ids = channelPool + conversationIds
        let parts = ids.compactMap { id -> String? in
            let count = server.unreadCount(userId: userId, channelId: id)
            return count > 0 ? "\(id): \(count)" : nil
        }
        return parts.isEmpty ? "nothing unread" : parts.joined(separator: ", ")
    }

    /// Every channel matching `query` for the oracle's user, loaded page by page. A list that
    /// stays `.loading` after `nextPage()` (a bug of its own, recorded in ``oracleProblems``) is
    /// asked again once, so the other checks still get their expectation.
    private func loadFully(_ query: ChannelListQuery, on client: ChatClient) async -> (items: [Channel], complete: Bool)
    {
        let list = ChannelRepository(client: client).getChannels(query: query)
        var pages = 0
        var retried = false
        while true {
            if !(await Settling.idle(list)) {
                oracleProblems.append(
                    "a fresh client's list stayed .loading after \(pages) nextPage() call(s) (\(query.sort), page \(query.pageSize))"
                )
                guard !retried, pages > 0 else { return (list.snapshots, false) }
                retried = true
                list.nextPage()
                continue
            }
            if list.dataStatus == .error || list.loadingStatus == .error {
                log.append("oracle: '\(query)' failed after \(pages) next pages: \(String(describing: list.error))")
                return (list.snapshots, false)
            }
            guard list.hasNext, pages < 100 else { break }
            list.nextPage()
            pages += 1
        }
        return (list.snapshots, !list.hasNext)
    }

    private func compareList(
        _ open: Device.OpenList, on device: Device, expected: (items: [Channel], complete: Bool)
    ) -> [Divergence] {
        var found: [Divergence] = []
        let prefix = "\(device.name) list '\(open.name)'"
        guard expected.complete else {
            return [.init(category: "oracle", detail: "\(prefix): a fresh client could not load the query fully")]
        }
        let list = open.list
        checks["lists", default: 0] += 1
        checks["list items", default: 0] += list.count
        if list.dataStatus == .error || list.loadingStatus == .error {
            found.append(
                .init(
                    category: "list-error",
                    detail:
                        "\(prefix) is in error after healing (\(list.dataStatus), \(list.loadingStatus)): \(String(describing: list.error))"
                ))
        }
        let live = list.snapshots
        let invisible = live.filter { server.channel($0.channelId, as: device.userId) == nil }
        if !invisible.isEmpty {
            found.append(
                .init(
                    category: "list-visibility",
                    detail: "\(prefix) shows channels the user may not see: \(invisible.map(\.channelId))"))
        }
        if let difference = windowDivergence(
            live: live.map(ChannelView.init), hasNext: list.hasNext, expected: expected.items.map(ChannelView.init))
        {
            // The server's own view of what the live window shows and the oracle's does not: tells
            // a stale client from a query that missed a channel.
            // Also, for an item that differs from the oracle's, the server's view now and the
            // device's own objects of that channel: tells a stale client from a stale query.
            let expectedById = Dictionary(
                expected.items.map { ($0.channelId, ChannelView($0)) }, uniquingKeysWith: { a, _ in a })
            let extra = live.filter { expectedById[$0.channelId] != ChannelView($0) }.map { channel in
                let objects = device.objects.filter { $0.channelId == channel.channelId }
                    .map { $0.object.snapshot.map { "\(ChannelView($0))" } ?? "nil" }
                return
                    "\(channel.channelId): server \(server.channel(channel.channelId, as: device.userId).map { "\(ChannelView($0))" } ?? "invisible")"
                    + (expectedById[channel.channelId] == nil ? "" : " (in the oracle's list, differing)")
                    + (objects.isEmpty ? "" : "; the device's objects: \(objects)")
            }
            found.append(
                .init(
                    category: "list",
                    detail: "\(prefix): \(difference)"
                        + (extra.isEmpty ? "" : "\n      unlike the oracle's list: \(extra)")))
        }
        for channel in live where !channel.isDeleted {
            let unread = server.unreadCount(userId: device.userId, channelId: channel.channelId)
            if channel.unreadCount != unread {
                found.append(
                    .init(
                        category: "unread",
                        detail: "\(prefix): \(channel.channelId) unreadCount \(channel.unreadCount), server \(unread)"))
            }
        }
        return found
    }

    private func compareObject(_ open: Device.OpenObject, on device: Device) -> [Divergence] {
        let object = open.object
        let prefix =
            "\(device.name) object \(open.channelId) (\(status(object.dataStatus, object.loadingStatus, object.error)))"
        let live = open.object.snapshot
        guard let expected = server.channel(open.channelId, as: device.userId) else {
            // Not visible (or no such channel): the object may keep its last value, but not as a member.
            if let live, live.currentUserMembership == .member {
                return [
                    .init(
                        category: "object",
                        detail:
                            "\(prefix): server says not visible, object still shows membership: \(ChannelView(live))")
                ]
            }
            return []
        }
        checks["visible objects", default: 0] += 1
        guard let live else {
            return [
                .init(
                    category: "object",
                    detail:
                        "\(prefix): shows nothing (\(open.object.dataStatus), error \(String(describing: open.object.error))), server \(ChannelView(expected))"
                )
            ]
        }
        var found: [Divergence] = []
        checks["objects not in error", default: 0] += 1
        if object.dataStatus == .error || object.loadingStatus == .error {
            found.append(
                .init(
                    category: "object-error",
                    detail: "\(prefix): in error after healing, though the server shows it: \(ChannelView(expected))"))
        }
        if ChannelView(live) != ChannelView(expected) {
            found.append(
                .init(
                    category: "object", detail: "\(prefix): live \(ChannelView(live)) ≠ server \(ChannelView(expected))"
                ))
        }
        if !expected.isDeleted {
            let unread = server.unreadCount(userId: device.userId, channelId: open.channelId)
            if live.unreadCount != unread {
                found.append(
                    .init(category: "unread", detail: "\(prefix): unreadCount \(live.unreadCount), server \(unread)"))
            }
        }
        return found
    }

    /// Member lists are kept current by the events the server sends to members, so the strict
    /// check applies while the user was a member throughout (member when the list opened, and
    /// nothing issued that could end the membership).
    private func compareMembers(_ open: Device.OpenMemberList, on device: Device) -> [Divergence] {
        let list = open.list
        let prefix =
            "\(device.name) member list of \(open.channelId) (\(open.filter), \(open.sort); \(status(list.dataStatus, list.loadingStatus, list.error)))"
        let live = list.snapshots.map(MemberView.init)
        if Set(live.map(\.userId)).count != live.count {
            return [.init(category: "members", detail: "\(prefix): duplicates \(live)")]
        }
        guard open.memberAtOpen, !membershipMayLapse.contains("\(device.userId)|\(open.channelId)"),
            isMember(device.userId, open.channelId)
        else { return [] }
        checks["strict member lists", default: 0] += 1
        if list.dataStatus == .error || list.loadingStatus == .error {
            return [.init(category: "members-error", detail: "\(prefix): in error after healing")]
        }
        let members = server.members(channelId: open.channelId)
        let selected = members.filter { member in
            switch open.filter {
            case .all: member.membership == .member
            case .mute: member.membership == .member && member.isMuted
            case .ban: member.membership == .banned
            }
        }
        let ascending = open.sort == .firstCreated
        let sorted = selected.sorted { a, b in
            if a.joinedAt != b.joinedAt { return ascending ? a.joinedAt < b.joinedAt : a.joinedAt > b.joinedAt }
            return a.userId < b.userId
        }
        if let difference = windowDivergence(live: live, hasNext: list.hasNext, expected: sorted.map(MemberView.init)) {
            return [.init(category: "members", detail: "\(prefix): \(difference)")]
        }
        return []
    }

    /// Message lists follow their channel while the user is a member: the strict check (the
    /// list is the tail of the server's messages, at least a page of it) applies when the user
    /// was a member throughout; otherwise every listed message must still equal the server's.
    private func compareMessages(_ open: Device.OpenMessageList, on device: Device) -> [Divergence] {
        let list = open.list
        let prefix =
            "\(device.name) message list of \(open.channelId) (page \(open.pageSize); \(status(list.dataStatus, list.loadingStatus, list.error)))"
        // The outbox's failed messages close the list (after every stored one): the device's own,
        // checked by `compareOutboxes()`.
        let snapshots = open.list.snapshots
        let localCount = snapshots.reversed().prefix { $0.syncState.isLocal }.count
        if snapshots.dropLast(localCount).contains(where: \.syncState.isLocal) {
            return [.init(category: "messages", detail: "\(prefix): a local message before a stored one")]
        }
        let live = snapshots.dropLast(localCount).map(MessageView.init)
        let server = server.messages(channelId: open.channelId).map(MessageView.init)
        let strict =
            open.memberAtOpen && !membershipMayLapse.contains("\(device.userId)|\(open.channelId)")
            && isMember(device.userId, open.channelId)
        if strict {
            checks["strict message lists", default: 0] += 1
            if list.dataStatus == .error || list.loadingStatus == .error {
                return [.init(category: "messages-error", detail: "\(prefix): in error after healing")]
            }
            // With a tiny history, what the server dropped may still be listed (clients keep
            // what they have): only the messages the server keeps are compared.
            let live = tinyHistory ? live.filter { $0.sequence >= (server.first?.sequence ?? .max) } : live
            let expectedTail = Array(server.suffix(live.count))
            if live != expectedTail || live.count < min(open.pageSize, server.count) {
                return [
                    .init(
                        category: "messages",
                        detail:
                            "\(prefix): live (\(live.count)) \(live.suffix(6)) ≠ server tail (\(server.count)) \(server.suffix(6))"
                    )
                ]
            }
            return []
        }
        let bySequence = Dictionary(server.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        // With a tiny history, a message the server dropped may still be listed (clients keep
        // what they have): only the messages the server keeps are compared.
        let oldestKept = tinyHistory ? server.first?.sequence ?? .max : .min
        let wrong = live.filter { $0.sequence >= oldestKept && bySequence[$0.sequence] != $0 }
        if !wrong.isEmpty {
            return [.init(category: "messages", detail: "\(prefix): messages unlike the server's: \(wrong)")]
        }
        return []
    }
}

/// One device of one user and the handles it opened.
final class Device {
    struct OpenList {
        let name: String
        let query: ChannelListQuery
        let list: LiveCollection<Channel>
    }

    struct OpenObject {
        let channelId: String
        let object: LiveObject<Channel>
    }

    struct OpenMemberList {
        let channelId: String
        let filter: MemberFilter
        let sort: MemberSort
        let list: LiveCollection<ChannelMember>
        let memberAtOpen: Bool
    }

    struct OpenMessageList {
        let channelId: String
        let pageSize: Int
        let list: LiveCollection<Message>
        let memberAtOpen: Bool
    }

    let userId: String
    let deviceId: String
    private(set) var client: ChatClient
    private(set) var channels: ChannelRepository
    private(set) var messages: MessageRepository
    var lists: [OpenList] = []
    var objects: [OpenObject] = []
    var memberLists: [OpenMemberList] = []
    var messageLists: [OpenMessageList] = []
    var totals: [LiveObject<Int>] = []
    /// Whether the scenario took the device offline (the `offlinePeriods` variation).
    var isOffline = false
    /// The device's disconnects and connects of the `offlinePeriods` variation, run one after
    /// another in the order the scenario drew them.
    var connectionChain: Task<Void, Never>?

    var name: String { "\(userId)/\(deviceId)" }

    /// The handles opened, as they are (to open them again on a restarted client).
    func snapshotOfHandles() -> (
        lists: [OpenList], objects: [OpenObject], memberLists: [OpenMemberList], messageLists: [OpenMessageList],
        totals: [LiveObject<Int>]
    ) {
        (lists, objects, memberLists, messageLists, totals)
    }

    /// Uses `client` from now on, with no handle open.
    func replaceClient(_ client: ChatClient) {
        self.client = client
        channels = ChannelRepository(client: client)
        messages = MessageRepository(client: client)
        lists = []
        objects = []
        memberLists = []
        messageLists = []
        totals = []
    }

    init(userId: String, deviceId: String, client: ChatClient) {
        self.userId = userId
        self.deviceId = deviceId
        self.client = client
        channels = ChannelRepository(client: client)
        messages = MessageRepository(client: client)
    }
}

/// A flag set once, read from anywhere.
final class Flag: Sendable {
    // Guards whether the flag was set.
    private let value = Lock(false)

    var isSet: Bool { value.withLock { $0 } }

    func set() { value.withLock { $0 = true } }
}

/// A directory of cache files for one scenario, removed when the scenario is freed.
final class TemporaryFiles: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("convergence-\(UUID().uuidString)")

    func file(_ name: String) -> URL {
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.appendingPathComponent(name)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
