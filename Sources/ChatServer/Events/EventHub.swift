import ChatAPI
import Foundation

/// The devices the server knows and the events it owes them: numbering, replay logs, live
/// connections, and the event faults (duplicates, delays) applied on delivery.
///
/// A plain value, kept with ``ServerState`` under the server's one lock. Yielding to a
/// connection's `AsyncStream` continuation never blocks, so delivering under the lock is safe
/// and keeps every device's events in sequence order.
struct EventHub: Sendable {
    typealias DeviceKey = ServerState.DeviceKey

    let logCapacity: Int
    private(set) var sessions: [DeviceKey: DeviceSession] = [:]
    /// The devices of each user with a session.
    private var devicesByUser: [String: Set<String>] = [:]
    private var nextLinkId: UInt64 = 1

    init(logCapacity: Int) {
        self.logCapacity = logCapacity
    }

    // MARK: Connections

    /// How a connect request was answered.
    struct Attachment: Sendable {
        var linkId: UInt64
        var status: ConnectResult.Status
        var lastSequence: Int
    }

    /// Attaches a new connection of `device` whose events go to `continuation`, replacing (and
    /// ending) any previous one of the same device. With `resumingAfter`, replays the missed
    /// envelopes first, or reports `.resyncRequired` when they are no longer all held.
    ///
    /// - Complexity: O(replayed events).
    mutating func attach(
        _ device: DeviceKey, continuation: AsyncStream<ConnectionEvent>.Continuation, resumingAfter sequence: Int?
    ) -> Attachment {
        if let previous = sessions[device]?.link {
            previous.continuation.yield(
                .disconnected(.connectionLost(.unavailable("another connection of device '\(device.deviceId)' replaced this one"))))
        }
        var session = sessions[device] ?? DeviceSession(logCapacity: logCapacity)
        devicesByUser[device.userId, default: []].insert(device.deviceId)
        let linkId = nextLinkId
        nextLinkId += 1
        session.link = DeviceSession.Link(id: linkId, continuation: continuation)
        var status = ConnectResult.Status.new
        if let sequence {
            if let missed = session.log.elements(after: sequence) {
                status = .resumed
                for envelope in missed { continuation.yield(.event(envelope)) }
            } else {
                status = .resyncRequired
            }
        }
        session.held = []
        sessions[device] = session
        return Attachment(linkId: linkId, status: status, lastSequence: session.log.lastSequence)
    }

    /// Ends the connection `linkId` of `device` with `reason`; false if it is not the current one.
    @discardableResult
    mutating func detach(_ device: DeviceKey, linkId: UInt64, reason: DisconnectReason) -> Bool {
        guard let link = sessions[device]?.link, link.id == linkId else { return false }
        link.continuation.yield(.disconnected(reason))
        sessions[device]?.link = nil
        sessions[device]?.held = []
        return true
    }

    /// The current connection id of `device`, if connected.
    func linkId(of device: DeviceKey) -> UInt64? { sessions[device]?.link?.id }

    /// Whether any device of the user is connected.
    func isConnected(userId: String) -> Bool {
        devicesByUser[userId, default: []].contains { sessions[DeviceKey(userId: userId, deviceId: $0)]?.link != nil }
    }

    // MARK: Publishing

    /// Turns state changes into one envelope per recipient device, rendered for its user,
    /// appends each to the device's log and delivers it (now, twice, or later, as the faults
    /// say).
    ///
    /// - Complexity: O(emissions × users with sessions).
    mutating func publish(_ emissions: [Emission], state: ServerState, faults: inout FaultPlan, now: Date) {
        for emission in emissions {
            for (userId, deviceIds) in devicesByUser where state.includes(userId, in: emission.audience) {
                guard let event = state.event(for: emission.change, viewer: userId, now: now) else { continue }
                for deviceId in deviceIds {
                    let device = DeviceKey(userId: userId, deviceId: deviceId)
                    let envelope = sessions[device]!.log.append { EventEnvelope(sequence: $0, event: event) }
                    deliver(envelope, to: device, faults: &faults, now: now)
                }
            }
        }
    }

    private mutating func deliver(_ envelope: EventEnvelope, to device: DeviceKey, faults: inout FaultPlan, now: Date) {
        guard let link = sessions[device]?.link else { return }
        if let until = faults.eventDelay(for: device, now: now) {
            sessions[device]!.held.append((envelope, until))
            return
        }
        if !sessions[device]!.held.isEmpty {
            sessions[device]!.held.append((envelope, now))
            return
        }
        link.continuation.yield(.event(envelope))
        if faults.takeDuplication(for: device) { link.continuation.yield(.event(envelope)) }
    }

    /// Delivers the held envelopes whose delay has passed, in order (an envelope never
    /// overtakes an older held one).
    ///
    /// - Returns: the earliest time something is still held until, if anything is.
    @discardableResult
    mutating func releaseHeld(now: Date) -> Date? {
        var earliest: Date?
        for (device, session) in sessions where !session.held.isEmpty {
            guard let link = session.link else { continue }
            var held = session.held
            while let first = held.first, first.until <= now {
                link.continuation.yield(.event(first.envelope))
                held.removeFirst()
            }
            sessions[device]!.held = held
            if let next = held.first?.until { earliest = min(earliest ?? next, next) }
        }
        return earliest
    }
}
