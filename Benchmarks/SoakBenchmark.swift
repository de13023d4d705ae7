import ChatAPI
import ChatServer
import Foundation
import Synchronization

/// `Benchmarks soak`: resident memory over a long run of the embedded server.
///
/// 1,000,000 messages over 1,000 live channels of 5 members each, among 100 users with one
/// connected device each (every user is in 50 channels). The devices read their event streams
/// as they come. Every 20,000 messages, 5 devices disconnect briefly (about 100 events behind:
/// they resume from their replay log) and 5 for 40,000 messages (about 2,000 events behind,
/// beyond the log's 1,024 and its 30-minute retention: they resync, reloading their first page
/// of channels). The server keeps 50 messages per channel (`messagesPerChannel`), so after the
/// first 10% (100 messages in every channel: twice what it keeps, its log's compaction slack;
/// every device log full) nothing should grow: resident memory is printed at the start and
/// every 10%.
///
/// The server's clock is a `ManualClock` moved 50 ms per message (14 hours in all), so the
/// age-based trimming of replay logs runs too. Sending waits, every 1,000 messages, until
/// every connected device has read everything, so that what is measured is the server: a
/// connection's transport buffers the events its device has not read yet without bound (like a
/// socket's send buffer that a network server would cap).
///
/// `Benchmarks soak.unbounded` runs the same with every message kept, for comparison.
enum SoakBenchmark {
    struct Plan {
        var messages = 1_000_000
        var channels = 1_000
        var users = 100
        var membersPerChannel = 5
        /// The server's `messagesPerChannel`.
        var messagesPerChannel = 50
        /// Server-clock seconds per message.
        var secondsPerMessage = 0.05
        /// Every this many messages, one group of devices drops briefly and one for long.
        var phase = 20_000
        var devicesPerGroup = 5
        /// Messages a briefly disconnected device misses.
        var shortAbsence = 2_000
        /// Phases a long-disconnected device misses.
        var longAbsencePhases = 2
        /// How often sending waits for the devices to catch up.
        var catchUpEvery = 1_000
    }

    /// One user's device: its transport and what its reader has consumed.
    final class Device: Sendable {
        let userId: String
        let transport: any ChatTransport
        /// The sequence number of the newest event read.
        let lastRead = Atomic<Int>(0)
        /// Events read (duplicates included).
        let eventsRead = Atomic<Int>(0)
        let isConnected = Atomic<Bool>(false)

        init(userId: String, transport: any ChatTransport) {
            self.userId = userId
            self.transport = transport
        }

        /// Reads the event stream until it ends.
        func read() async {
            for await element in transport.events {
                guard case .event(let envelope) = element else { continue }
                eventsRead.add(1, ordering: .relaxed)
                lastRead.store(max(lastRead.load(ordering: .relaxed), envelope.sequence), ordering: .releasing)
            }
        }

        /// Connects, resuming after the newest event read; on a resync, reloads what a client
        /// shows first (its first page of channels) and reads on from the server's position.
        func connect(counts: Counts) async throws {
            let result = try await transport.connect(resumingAfter: lastRead.load(ordering: .acquiring))
            switch result.status {
            case .resumed:
                counts.resumed.add(1, ordering: .relaxed)
            case .resyncRequired, .new:
                counts.resynced.add(1, ordering: .relaxed)
                let query = ChannelListQuery(filter: .containMembers(userIds: [userId]), pageSize: 20)
                _ = try await transport.send(.queryChannels(query, after: nil))
                lastRead.store(result.lastSequence, ordering: .releasing)
            }
            isConnected.store(true, ordering: .releasing)
        }

        func disconnect() async {
            isConnected.store(false, ordering: .releasing)
            await transport.disconnect()
        }
    }

    /// How reconnects went.
    final class Counts: Sendable {
        let resumed = Atomic<Int>(0)
        let resynced = Atomic<Int>(0)
    }

    static func run(unbounded: Bool = false) async {
        do {
            try await soak(Plan(), unbounded: unbounded)
        } catch {
            print("soak benchmark failed: \(error)")
        }
    }

    static func soak(_ plan: Plan, unbounded: Bool) async throws {
        let retention = unbounded ? Int.max : plan.messagesPerChannel
        print(
            "## soak — \(plan.messages) messages, \(plan.channels) channels, \(plan.users) devices\(unbounded ? ", every message kept" : "")\n"
        )
        let clock = ManualClock()
        let configuration = ServerConfiguration(eventLogRetention: 1_800, messagesPerChannel: retention)
        let server = ChatServer(clock: clock, configuration: configuration)
        let userIds = (0..<plan.users).map { "user-\($0)" }
        for userId in userIds { try await server.registerUser(id: userId) }
        // Channel c's members: users c, c + 20, c + 40 … (mod 100): every user is in 50 channels.
        let stride = plan.users / plan.membersPerChannel
        let members = (0..<plan.channels).map { channel in
            (0..<plan.membersPerChannel).map { userIds[(channel + $0 * stride) % plan.users] }
        }
        for (channel, memberIds) in members.enumerated() {
            try await server.createChannel(type: .live, channelId: "channel-\(channel)", userIds: memberIds)
        }
        let counts = Counts()
        var devices: [String: Device] = [:]
        var readers: [Task<Void, Never>] = []
        for userId in userIds {
            let device = Device(userId: userId, transport: server.connection(userId: userId, deviceId: "phone"))
            devices[userId] = device
            readers.append(Task { await device.read() })
            try await device.connect(counts: counts)
        }
        _ = (counts.resumed.exchange(0, ordering: .relaxed), counts.resynced.exchange(0, ordering: .relaxed))

        var samples: [Sample] = []
        let start = ContinuousClock.now
        func sample(_ messages: Int) {
            samples.append(
                Sample(
                    messages: messages, resident: MemoryProbe.allocatedBytes() ?? 0,
                    seconds: Harness.seconds(ContinuousClock.now - start)))
        }
        sample(0)
        /// Devices away, by the message index at which they come back.
        var away: [Int: [Device]] = [:]
        for index in 0..<plan.messages {
            if index % plan.phase == 0 {
                let phase = index / plan.phase
                let first = (phase * 2 * plan.devicesPerGroup) % plan.users
                let group = (0..<(2 * plan.devicesPerGroup)).map { devices[userIds[(first + $0) % plan.users]]! }
                for device in group { await device.disconnect() }
                away[index + plan.shortAbsence, default: []] += group.prefix(plan.devicesPerGroup)
                away[index + plan.longAbsencePhases * plan.phase, default: []] += group.suffix(plan.devicesPerGroup)
            }
            for device in away.removeValue(forKey: index) ?? [] { try await device.connect(counts: counts) }

            let channel = index % plan.channels
            let sender = members[channel][(index / plan.channels) % plan.membersPerChannel]
            let draft = MessageDraft(channelId: "channel-\(channel)", text: "soak message \(index)")
            if let device = devices[sender], device.isConnected.load(ordering: .acquiring) {
                _ = try await device.transport.send(.sendMessage(draft))
            } else {
                try await server.sendMessage(as: sender, channelId: draft.channelId, text: draft.text)
            }
            if index % 20 == 19 { clock.advance(by: 20 * plan.secondsPerMessage) }
            if (index + 1) % plan.catchUpEvery == 0 { await catchUp(devices.values, server: server) }
            if (index + 1) % (plan.messages / 10) == 0 { sample(index + 1) }
        }
        await catchUp(devices.values, server: server)
        let elapsed = Harness.seconds(ContinuousClock.now - start)
        let kept = (0..<plan.channels).reduce(0) { $0 + server.messages(channelId: "channel-\($1)").count }
        let events = devices.values.reduce(0) { $0 + $1.eventsRead.load(ordering: .relaxed) }
        for device in devices.values { await device.disconnect() }
        for reader in readers { reader.cancel() }

        report(samples, plan: plan)
        print()
        print(
            "\(plan.messages) messages in \(Harness.format(elapsed)) (\(Int(Double(plan.messages) / elapsed)) messages/s), "
                + "\(events) events read; reconnects: \(counts.resumed.load(ordering: .relaxed)) resumed, "
                + "\(counts.resynced.load(ordering: .relaxed)) resynced; messages kept: \(kept)")
        print()
    }

    /// Waits until every connected device has read every event the server queued for it.
    static func catchUp(_ devices: some Sequence<Device>, server: ChatServer) async {
        for device in devices where device.isConnected.load(ordering: .acquiring) {
            let target = server.lastEventSequence(userId: device.userId, deviceId: "phone")
            while device.lastRead.load(ordering: .acquiring) < target {
                try? await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Resident memory after some messages.
    struct Sample {
        var messages: Int
        /// Resident memory as the system counts it (the allocator's free pages included).
        var resident: Int
        var seconds: Double
    }

    /// Prints the samples and whether memory stayed flat after the warm-up (the first 10%: by
    /// then every channel has received twice the messages it keeps — its log's compaction
    /// slack — and every device log is full).
    static func report(_ samples: [Sample], plan: Plan) {
        func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
        func change(_ from: Int, _ to: Int) -> Double { Double(to - from) / Double(from) * 100 }
        guard let warm = samples.first(where: { $0.messages == plan.messages / 10 }), let last = samples.last else {
            return
        }
        Harness.table(
            ["messages sent", "resident memory", "vs. 10%", "time"],
            samples.map { sample in
                [
                    "\(sample.messages)", mebibytes(sample.resident),
                    sample.messages >= warm.messages
                        ? String(format: "%+.1f%%", change(warm.resident, sample.resident)) : "—",
                    Harness.format(sample.seconds),
                ]
            })
        let after = samples.filter { $0.messages >= warm.messages }.map(\.resident)
        let spread = change(after.min()!, after.max()!)
        print()
        print(
            String(
                format: "after the warm-up (10%% → 100%%): %+.1f%% at the end, samples within %.1f%% of each other: ",
                change(warm.resident, last.resident), spread)
                + (spread <= 5 ? "flat" : "NOT flat"))
    }
}
