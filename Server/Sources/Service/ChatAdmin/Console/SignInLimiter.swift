import ChatGateway
import ChatServer
import Foundation
import NIOConcurrencyHelpers

/// Bounds the console's sign-in attempts per client address: at most ``attempts`` refused
/// attempts per ``window``; further attempts from that address are refused (429) until the
/// window ends, whatever the token. A successful sign-in does not count. Memory is bounded:
/// an address is forgotten when its window ends, and at most ``maximumAddresses`` are kept (the
/// oldest dropped first).
final class SignInLimiter: Sendable {
    static let attempts = 5
    static let window: TimeInterval = 60
    static let maximumAddresses = 10_000

    private struct Entry {
        var started: Date
        var refused: Int
    }
    private let entries = NIOLockedValueBox([String: Entry]())
    /// The node's clock.
    private let clock: any ServerClock

    init(clock: any ServerClock = SystemClock()) {
        self.clock = clock
    }

    /// Whether `address` may try now; when it may not, how many seconds until it may.
    func wait(for address: String) -> Int? {
        let now = clock.now
        return entries.withLockedValue { entries in
            guard let entry = entries[address] else { return nil }
            let end = entry.started.addingTimeInterval(Self.window)
            if end <= now {
                entries[address] = nil
                return nil
            }
            return entry.refused >= Self.attempts ? Int(end.timeIntervalSince(now).rounded(.up)) : nil
        }
    }

    /// Counts a refused attempt from `address`.
    func refused(_ address: String) {
        let now = clock.now
        entries.withLockedValue { entries in
            if var entry = entries[address], entry.started.addingTimeInterval(Self.window) > now {
                entry.refused += 1
                entries[address] = entry
                return
            }
            if entries.count >= Self.maximumAddresses,
                let oldest = entries.min(by: { $0.value.started < $1.value.started })?.key
            {
                entries[oldest] = nil
            }
            entries[address] = Entry(started: now, refused: 1)
        }
    }
}
