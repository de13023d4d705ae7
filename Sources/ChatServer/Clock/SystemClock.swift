import Foundation

/// The real clock: `now` is the current date; `sleep(until:)` waits in real time.
public struct SystemClock: ServerClock {
    public init() {}

    public var now: Date { Self.wireExact(Date()) }

    /// The longest single wait handed to the system: one day. A later deadline (a mute "for
    /// ever", `Date.distantFuture`, any date a store holds) is slept towards a day at a time,
    /// so no deadline, however far, is converted to a number of nanoseconds that cannot hold it.
    static let longestWait: TimeInterval = 86_400

    /// Suspends until `deadline`, however far away (see ``longestWait``); a deadline that is not
    /// a finite date (NaN) returns at once.
    public func sleep(until deadline: Date) async throws {
        while true {
            let seconds = deadline.timeIntervalSince(now)
            guard seconds > 0 else { return }  // also false for NaN
            try await Task.sleep(nanoseconds: Self.nanoseconds(for: seconds))
        }
    }

    /// `seconds` (positive) as nanoseconds to sleep, at most ``longestWait``'s: a conversion that
    /// never traps.
    static func nanoseconds(for seconds: TimeInterval) -> UInt64 {
        UInt64(max(0.000_001, min(seconds, longestWait)) * 1_000_000_000)
    }
}
