import Foundation

/// The real clock: `now` is the current date; `sleep(until:)` waits in real time.
public struct SystemClock: ServerClock {
    public init() {}

    public var now: Date { Self.wireExact(Date()) }

    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSince(now)
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
    }
}
