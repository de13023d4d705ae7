import ChatAPI
import Foundation

/// Fault injection for tests: makes the embedded server fail, stall, drop connections and
/// mis-deliver events on purpose, deterministically.
///
/// Every fault can target one user (`userId`), one device (`userId` + `deviceId`) or everyone
/// (both `nil`). Faults armed for the same target are consumed in the order they were armed.
/// Durations are measured on the server's clock: with a ``ManualClock``, a delayed request or
/// event waits until the test advances the clock (``ManualClock/waitForSleepers(_:)`` tells
/// when a delayed request is parked).
///
/// - Threading: every member is thread-safe.
public final class ServerFaults: Sendable {
    private let engine: ServerEngine

    init(engine: ServerEngine) {
        self.engine = engine
    }

    /// The next `count` requests of the targeted connections fail with `error` and change
    /// nothing.
    public func failNext(
        _ count: Int = 1, with error: ChatError = .unavailable("injected failure"),
        userId: String? = nil, deviceId: String? = nil
    ) {
        arm { $0.arm(.fail(error), count: count, target: .init(userId: userId, deviceId: deviceId)) }
    }

    /// The next `count` requests of the targeted connections wait `seconds` of server time
    /// before they run (they run in full afterwards).
    public func delayNext(_ count: Int = 1, by seconds: TimeInterval, userId: String? = nil, deviceId: String? = nil) {
        arm { $0.arm(.delay(seconds), count: count, target: .init(userId: userId, deviceId: deviceId)) }
    }

    /// The next `count` requests of the device run in full — every change made, every event
    /// queued — then its connection drops before their answers are sent: what a network failure
    /// after the server did the work looks like. The caller sees `unavailable` and the device's
    /// transport `.disconnected(.connectionLost(…))`; a reconnect resumes after its last event.
    public func dropAfterNext(_ count: Int = 1, userId: String, deviceId: String = ChatServer.defaultDeviceId) {
        arm { $0.arm(.dropBeforeAnswer, count: count, target: .init(userId: userId, deviceId: deviceId)) }
    }

    /// The next `count` connect attempts of the targeted devices fail with `error` (to test
    /// reconnection with backoff).
    public func failNextConnects(
        _ count: Int = 1, with error: ChatError = .unavailable("injected connect failure"),
        userId: String? = nil, deviceId: String? = nil
    ) {
        arm { $0.armConnectFailure(error, count: count, target: .init(userId: userId, deviceId: deviceId)) }
    }

    /// Drops the device's connection as a network failure would: its transport yields
    /// `.disconnected(.connectionLost(.unavailable(…)))`, its reading stops, and its requests
    /// fail with `unavailable` until it connects again (resuming after its last event).
    ///
    /// - Returns: whether the device was connected.
    @discardableResult
    public func dropConnection(userId: String, deviceId: String = ChatServer.defaultDeviceId) -> Bool {
        engine.dropConnection(ServerState.DeviceKey(userId: userId, deviceId: deviceId))
    }

    /// The next `count` events delivered to each targeted device are delivered twice (same
    /// envelope, same sequence number).
    public func duplicateNextEvents(_ count: Int = 1, userId: String? = nil, deviceId: String? = nil) {
        arm { $0.armDuplication(count: count, target: .init(userId: userId, deviceId: deviceId)) }
    }

    /// Events for the targeted devices produced during the next `seconds` of server time are
    /// delivered late: held back (in order, still numbered and logged) until the clock passes
    /// the delay. Responses are not held, so a client sees them before their events. Held
    /// events are released on the first clock advance or server operation after the delay.
    public func delayEvents(by seconds: TimeInterval, userId: String? = nil, deviceId: String? = nil) {
        let until = engine.clock.now + seconds
        arm { $0.armEventDelay(until: until, target: .init(userId: userId, deviceId: deviceId)) }
        let engine = engine
        Task {
            try? await engine.clock.sleep(until: until)
            engine.housekeep()
        }
    }

    private func arm(_ body: (inout FaultPlan) -> Void) {
        engine.armFaults(body)
    }
}
