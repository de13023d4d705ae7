import Foundation

/// The server's only source of time. Mute periods, rate-limit windows, typing expiry, message
/// timestamps and injected delays all read it, never the wall clock, so tests are deterministic.
///
/// Use ``SystemClock`` in apps and ``ManualClock`` in tests.
public protocol ServerClock: Sendable {
    /// The current time. Return it ``wireExact(_:)``: every date the server stamps then crosses
    /// the wire protocol (seconds since 1970, JSON) and comes back equal.
    var now: Date { get }

    /// Suspends until `now` has reached `deadline` (returns at once if it already has).
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting.
    func sleep(until deadline: Date) async throws

    /// Registers `handler` to run after every change of time the clock makes on its own
    /// initiative (``ManualClock/advance(by:)``). Clocks whose time flows continuously never
    /// call it; the server then checks for expiries lazily, on every request.
    func onAdvance(_ handler: @escaping @Sendable () -> Void)

    /// Whether the server must wake itself at its deadlines (a typing indicator's expiry, a
    /// mute's end) so that what expires is told without other traffic: `true` for a clock
    /// whose time flows by itself (the default), `false` for one that runs the ``onAdvance(_:)``
    /// handlers at every change of time (``ManualClock``).
    var needsWakeUps: Bool { get }
}

extension ServerClock {
    public func onAdvance(_ handler: @escaping @Sendable () -> Void) {}

    public var needsWakeUps: Bool { true }

    /// `date` rounded to a whole multiple of 2^-20 s (about a microsecond).
    ///
    /// The wire protocol writes dates as seconds since 1970; converting a `Date` (seconds since
    /// 2001) there and back rounds, so a value read back would differ from the server's by an
    /// ulp — and a cache comparing values would see a change that is not one. A multiple of
    /// 2^-20 s within ±2^32 s of 2001 has few enough bits that both conversions are exact.
    public static func wireExact(_ date: Date) -> Date {
        let scale = 1_048_576.0
        return Date(timeIntervalSinceReferenceDate: (date.timeIntervalSinceReferenceDate * scale).rounded() / scale)
    }
}
