import ChatAPI
import Foundation
import Locking

/// The server's storage: owns the lock around ``ServerCore`` and the clock, and runs each
/// operation as one atomic step (expire timers, apply, publish events). ``ChatServer``,
/// its connections and its fault handle are thin layers over it.
///
/// - Threading: every method is thread-safe; none suspends while holding the lock. Time is
///   read under the lock, so operations see non-decreasing times in the order they apply.
final class ServerEngine: Sendable {
    typealias DeviceKey = ServerState.DeviceKey

    let clock: any ServerClock
    /// Guards the whole server: state, sessions and faults change together or not at all.
    let core: Lock<ServerCore>

    init(clock: any ServerClock, configuration: ServerConfiguration) {
        self.clock = clock
        core = Lock(ServerCore(configuration: configuration))
    }

    /// Runs `body` atomically at the clock's current time, after expiring what has expired,
    /// and publishes the events of the changes it made.
    ///
    /// - Throws: what `body` throws; `body` changes nothing when it throws.
    func perform<Result, Failure: Error>(
        _ body: (inout ServerState, Date) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        return try core.withLock { (core: inout ServerCore) throws(Failure) -> Result in
            let now = clock.now
            core.housekeep(now: now)
            defer { core.publishOutbox(now: now) }
            return try body(&core.state, now)
        }
    }

    /// Reads the state at the clock's current time (after expiring what has expired).
    func read<Result>(_ body: (ServerState, Date) -> Result) -> Result {
        return core.withLock { core in
            let now = clock.now
            core.housekeep(now: now)
            return body(core.state, now)
        }
    }

    /// Expires what has expired and releases late events; run on every clock advance.
    func housekeep() {
        core.withLock { $0.housekeep(now: clock.now) }
    }

    // MARK: Connections

    /// Opens a connection of `device`, ending `replacing` (this transport's previous
    /// connection) first, registering the user on first connect.
    ///
    /// - Throws: `invalidArgument` (`userId`, `deviceId`); an injected connect failure.
    func connect(
        _ device: DeviceKey, replacing previous: UInt64?, continuation: AsyncStream<ConnectionEvent>.Continuation,
        resumingAfter sequence: Int?
    ) throws(ChatError) -> (result: ConnectResult, linkId: UInt64) {
        try InputCheck.id(device.userId, field: "userId")
        try InputCheck.id(device.deviceId, field: "deviceId")
        return try core.withLock { (core: inout ServerCore) throws(ChatError) -> (ConnectResult, UInt64) in
            let now = clock.now
            if let error = core.faults.takeConnectFailure(for: device) { throw error }
            core.housekeep(now: now)
            if let previous {
                core.detach(device, linkId: previous, reason: .requested, now: now, updatingPresence: false)
            }
            core.state.ensureUser(device.userId, now: now)
            let attachment = core.hub.attach(device, continuation: continuation, resumingAfter: sequence, now: now)
            core.updatePresence(of: device.userId, now: now)
            let result = ConnectResult(
                status: attachment.status, currentUser: core.state.users[device.userId]!,
                lastSequence: attachment.lastSequence)
            return (result, attachment.linkId)
        }
    }

    /// Ends connection `linkId` of `device` (no effect if it is not the current one).
    func disconnect(_ device: DeviceKey, linkId: UInt64, reason: DisconnectReason) {
        core.withLock { $0.detach(device, linkId: linkId, reason: reason, now: clock.now) }
    }

    /// Performs a request of connection `linkId`, which must still be the device's current one.
    /// The response is stamped, under the same lock, with the device's last event sequence and
    /// the server's revision once the request's own events are queued: the events it caused are
    /// at or before its position, and nothing that happens later is.
    ///
    /// - Throws: `unavailable` when the connection has ended; else the request's error.
    func handle(_ request: ChatRequest, from device: DeviceKey, linkId: UInt64) throws(ChatError) -> ResponseEnvelope {
        return try core.withLock { (core: inout ServerCore) throws(ChatError) -> ResponseEnvelope in
            let now = clock.now
            guard core.hub.linkId(of: device) == linkId else {
                throw .unavailable("the connection of device '\(device.deviceId)' has ended")
            }
            core.housekeep(now: now)
            let response: ChatResponse
            do {
                defer { core.publishOutbox(now: now) }
                response = try core.state.handle(request, from: device, now: now)
            }
            return ResponseEnvelope(
                position: core.hub.lastSequence(of: device), revision: core.state.revision, response: response)
        }
    }

    /// Consumes the request fault armed for `device`, if any.
    func takeRequestFault(for device: DeviceKey) -> FaultPlan.RequestFault? {
        core.withLock { $0.faults.takeRequestFault(for: device) }
    }
}
