import ChatAPI
import ChatServer
import Foundation
import Synchronization
import TestSupport

/// `Benchmarks push`: what deciding pushes adds to a send. One member sends acknowledged messages
/// into channels where one other member is away with a phone registered, so every message makes
/// one push; the baseline is the same sends on a server with no push sink (nothing decided).
/// Measured in a 2-member channel and in a 100-member channel with 99 members connected, runs
/// alternating which goes first, median of seven.
enum PushBenchmark {
    static let messages = 2_000

    /// Counts the pushes handed to it, as a provider's queue would take them.
    final class CountingSink: PushSink {
        let count = Atomic<Int>(0)
        func enqueue(_ notifications: [PushNotification]) {
            count.add(notifications.count, ordering: .relaxed)
        }
    }

    static func run() async {
        print("## push — an acknowledged send, each message pushing to one away member\n")
        do {
            var rows: [[String]] = []
            for members in [2, 100] {
                var off: [Double] = []
                var on: [Double] = []
                var pushed = 0
                for run in 0..<7 {
                    let sink = CountingSink()
                    if run % 2 == 0 { off.append(try await sendRun(members: members, sink: nil)) }
                    on.append(try await sendRun(members: members, sink: sink))
                    if run % 2 == 1 { off.append(try await sendRun(members: members, sink: nil)) }
                    pushed = sink.count.load(ordering: .relaxed)
                }
                let (baseline, pushing) = (median(off), median(on))
                rows.append([
                    "\(members) members, 1 away", micro(baseline), micro(pushing),
                    String(format: "%+.1f%%", (pushing / baseline - 1) * 100), "\(pushed)",
                ])
            }
            Harness.table(["\(messages) sends", "no pushes (baseline)", "pushes on", "difference", "pushes"], rows)
            print()
        } catch {
            print("push benchmark failed: \(error)")
        }
    }

    /// Seconds per acknowledged send, into a channel of `members` where all but the last are
    /// connected and the last is away with a phone.
    private static func sendRun(members: Int, sink: (any PushSink)?) async throws -> Double {
        let server = ChatServer(clock: ManualClock())
        let userIds = (0..<members).map { "u\($0)" }
        try await server.createChannel(type: .community, channelId: "hall", userIds: userIds)
        let away = server.connection(userId: userIds[members - 1], deviceId: "phone")
        _ = try await away.connect(resumingAfter: nil)
        _ = try await away.send(.addPushDevice(.apn(token: Data(repeating: 0xab, count: 32))))
        await away.disconnect()
        var connected: [any ChatTransport] = []
        for userId in userIds.dropLast() {
            let device = server.connection(userId: userId, deviceId: "phone")
            _ = try await device.connect(resumingAfter: nil)
            connected.append(device)
        }
        server.deliverPushes(to: sink)
        let sender = connected[0]
        let seconds = try await Harness.once {
            for index in 0..<messages {
                _ = try await sender.send(.sendMessage(MessageDraft(channelId: "hall", text: "message \(index)")))
            }
        }
        for device in connected { await device.disconnect() }
        return seconds / Double(messages)
    }

    private static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
    private static func micro(_ seconds: Double) -> String { String(format: "%.2f µs", seconds * 1e6) }
}
