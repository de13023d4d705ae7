import Foundation

/// The server's only source of time. Mute periods, rate-limit windows, typing expiry, message
/// timestamps and injected delays all read it, never the wall clock, so tests are deterministic.
///
/// Use ``SystemClock`` in apps and ``ManualClock`` in tests.
public protocol ServerClock: Sendable {
    /// The current time.
    var now: Date { get }

    /// Suspends until `now` has reached `deadline` (returns at once if it already has).
    ///
    /// - Throws: `CancellationError` if the task is cancelled while waiting.
    func sleep(until deadline: Date) async throws

    /// Registers `handler` to run after every change of time the clock makes on its own
    /// initiative (``ManualClock/advance(by:)``). Clocks whose time flows continuously never
    /// call it; the server then checks for expiries lazily, on every request.
    func onAdvance(_ handler: @escaping @Sendable () -> Void)
}

extension ServerClock {
    public func onAdvance(_ handler: @escaping @Sendable () -> Void) {}
}
