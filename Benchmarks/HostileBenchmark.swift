import ChatAPI
import ChatServer
import Foundation
import Synchronization

/// `Benchmarks hostile`: what one careless or hostile client costs everyone else, with the
/// limits of `ServerConfiguration.standard` beside no limits (`ServerConfiguration()`), in the
/// same run.
///
/// - A stalled reader: a device that never reads its events while 300,000 messages flow into
///   its channel; the server's resident memory growth.
/// - A flooding device: 8 tasks of one device sending `getChannel` as fast as they can; another
///   user's `getChannel` latency (p50/p99) beside the same user alone.
/// - 10,000 devices of one user: how many are admitted, resident memory, and the latency of a
///   message sent into that user's channel.
enum HostileBenchmark {
    static func run() async {
        do {
            try await stalledReader()
            try await floodingDevice()
            try await manyDevices()
        } catch {
            print("hostile benchmark failed: \(error)")
        }
    }

    static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    static func stalledReader() async throws {
        guard !CommandLine.arguments.contains("hostile.skip-stalled") else { return }
        print("## hostile — a stalled reader while 300,000 messages flow\n")
        var rows: [[String]] = []
        for (name, configuration) in [
            ("standard limits", ServerConfiguration.standard), ("no limits", ServerConfiguration()),
        ] {
            let server = ChatServer(configuration: configuration)
            try await server.createChannel(type: .community, channelId: "room", userIds: ["stalled", "sender"])
            let stalled = server.connection(userId: "stalled")
            _ = try await stalled.connect(resumingAfter: nil)
            let before = MemoryProbe.allocatedBytes() ?? 0
            let text = String(repeating: "x", count: 200)
            for _ in 0..<300_000 { try await server.sendMessage(as: "sender", channelId: "room", text: text) }
            let after = MemoryProbe.allocatedBytes() ?? 0
            rows.append([name, mebibytes(after - before)])
            withExtendedLifetime(stalled) {}
        }
        Harness.table(["server", "resident memory growth"], rows)
    }

    static func percentiles(_ samples: [Double]) -> (String, String) {
        let sorted = samples.sorted()
        return (Harness.format(sorted[sorted.count / 2]), Harness.format(sorted[sorted.count * 99 / 100]))
    }

    /// Another user's `getChannel` latencies: 400 of them, 50 a second (within any limit).
    static func quietLatencies(on server: ChatServer, device: String) async throws -> [Double] {
        let quiet = server.connection(userId: "quiet", deviceId: device)
        _ = try await quiet.connect(resumingAfter: nil)
        var samples: [Double] = []
        for _ in 0..<400 {
            let start = ContinuousClock.now
            _ = try await quiet.send(.getChannel(channelId: "room"))
            samples.append(Harness.seconds(ContinuousClock.now - start))
            try await Task.sleep(for: .milliseconds(20))
        }
        await quiet.disconnect()
        return samples
    }

    static func floodingDevice() async throws {
        print("## hostile — a device flooding requests; another user's getChannel\n")
        var rows: [[String]] = []
        for (name, configuration) in [
            ("standard limits", ServerConfiguration.standard), ("no limits", ServerConfiguration()),
        ] {
            let server = ChatServer(configuration: configuration)
            try await server.createChannel(type: .community, channelId: "room", userIds: ["quiet", "flood"])
            let (alone50, alone99) = percentiles(try await quietLatencies(on: server, device: "alone"))
            let flood = server.connection(userId: "flood")
            _ = try await flood.connect(resumingAfter: nil)
            let stop = ManagedFlag()
            let flooders = (0..<8).map { _ in
                Task {
                    var count = 0
                    while !stop.isSet {
                        _ = try? await flood.send(.getChannel(channelId: "room"))
                        count += 1
                        if count % 64 == 0 { await Task.yield() }
                    }
                }
            }
            let (flooded50, flooded99) = percentiles(try await quietLatencies(on: server, device: "beside"))
            stop.set()
            for flooder in flooders { await flooder.value }
            rows.append([name, alone50, alone99, flooded50, flooded99])
        }
        Harness.table(["server", "alone p50", "alone p99", "beside the flood p50", "beside the flood p99"], rows)
    }

    static func manyDevices() async throws {
        print("## hostile — 10,000 devices of one user\n")
        var rows: [[String]] = []
        for (name, configuration) in [
            ("standard limits", ServerConfiguration.standard), ("no limits", ServerConfiguration()),
        ] {
            let server = ChatServer(configuration: configuration)
            try await server.createChannel(type: .community, channelId: "room", userIds: ["many", "quiet"])
            let before = MemoryProbe.allocatedBytes() ?? 0
            var devices: [any ChatTransport] = []
            var admitted = 0
            for number in 0..<10_000 {
                let device = server.connection(userId: "many", deviceId: "d\(number)")
                if (try? await device.connect(resumingAfter: nil)) != nil { admitted += 1 }
                devices.append(device)
            }
            var samples: [Double] = []
            for number in 0..<200 {
                let start = ContinuousClock.now
                try await server.sendMessage(as: "quiet", channelId: "room", text: "m\(number)")
                samples.append(Harness.seconds(ContinuousClock.now - start))
            }
            let after = MemoryProbe.allocatedBytes() ?? 0
            let (p50, p99) = percentiles(samples)
            rows.append([name, "\(admitted)", mebibytes(after - before), p50, p99])
            withExtendedLifetime(devices) {}
        }
        Harness.table(["server", "devices admitted", "resident memory growth", "send p50", "send p99"], rows)
    }
}

/// A flag set once, read from many tasks.
final class ManagedFlag: Sendable {
    private let flag = Mutex(false)
    var isSet: Bool { flag.withLock { $0 } }
    func set() { flag.withLock { $0 = true } }
}
