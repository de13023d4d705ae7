import ChatAPI
import Foundation

/// The faults armed for the next requests, connects and events: a pure value the server
/// consults at each step. Each armed fault names a target (a user, a device, or everyone) and
/// is consumed in the order it was armed.
struct FaultPlan: Sendable {
    /// Which devices a fault applies to; `nil` fields match anything.
    struct Target: Sendable, Hashable {
        var userId: String?
        var deviceId: String?

        func matches(_ device: ServerState.DeviceKey) -> Bool {
            (userId ?? device.userId) == device.userId && (deviceId ?? device.deviceId) == device.deviceId
        }
    }

    /// What happens to a request.
    enum RequestFault: Sendable, Hashable {
        /// It fails with the error, changing nothing.
        case fail(ChatError)
        /// It waits this many seconds of the server's clock, then runs.
        case delay(TimeInterval)
        /// It runs in full, then the device's connection drops before the answer is sent.
        case dropBeforeAnswer
    }

    private struct Armed<Payload: Sendable>: Sendable {
        var target: Target
        var payload: Payload
        var remaining: Int
    }

    private var requestFaults: [Armed<RequestFault>] = []
    /// Whether any request fault is armed.
    var hasRequestFaults: Bool { !requestFaults.isEmpty }
    private var connectFailures: [Armed<ChatError>] = []
    private var duplications: [Armed<Void>] = []
    private var eventDelays: [(target: Target, until: Date)] = []

    mutating func arm(_ fault: RequestFault, count: Int, target: Target) {
        if count > 0 { requestFaults.append(Armed(target: target, payload: fault, remaining: count)) }
    }

    mutating func armConnectFailure(_ error: ChatError, count: Int, target: Target) {
        if count > 0 { connectFailures.append(Armed(target: target, payload: error, remaining: count)) }
    }

    mutating func armDuplication(count: Int, target: Target) {
        if count > 0 { duplications.append(Armed(target: target, payload: (), remaining: count)) }
    }

    mutating func armEventDelay(until: Date, target: Target) {
        eventDelays.append((target, until))
    }

    /// Consumes and returns the first armed request fault for `device`.
    mutating func takeRequestFault(for device: ServerState.DeviceKey) -> RequestFault? {
        if requestFaults.isEmpty { return nil }
        return Self.take(from: &requestFaults, for: device)
    }

    /// Consumes and returns the first armed connect failure for `device`.
    mutating func takeConnectFailure(for device: ServerState.DeviceKey) -> ChatError? {
        Self.take(from: &connectFailures, for: device)
    }

    /// Consumes one armed duplication for `device`; whether there was one.
    mutating func takeDuplication(for device: ServerState.DeviceKey) -> Bool {
        if duplications.isEmpty { return false }
        return Self.take(from: &duplications, for: device) != nil
    }

    /// Until when events to `device` are held back at `now` (`nil`: not held). Forgets delays
    /// that have passed.
    mutating func eventDelay(for device: ServerState.DeviceKey, now: Date) -> Date? {
        if eventDelays.isEmpty { return nil }
        eventDelays.removeAll { $0.until <= now }
        return eventDelays.filter { $0.target.matches(device) }.map(\.until).max()
    }

    private static func take<Payload>(from queue: inout [Armed<Payload>], for device: ServerState.DeviceKey) -> Payload?
    {
        guard let index = queue.firstIndex(where: { $0.target.matches(device) }) else { return nil }
        let payload = queue[index].payload
        queue[index].remaining -= 1
        if queue[index].remaining == 0 { queue.remove(at: index) }
        return payload
    }
}
