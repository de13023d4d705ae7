import ChatAPI
import ChatServer
import Foundation

/// One connected device in a test: its transport and a cursor into its event stream.
///
/// A response comes back only after the events its request caused were queued, so after an
/// `await send(...)` those events can be read without waiting; ``drain()`` reads exactly up
/// to the newest event the server numbered for this device, never blocking on silence.
struct TestDevice {
    let server: ChatServer
    let transport: any ChatTransport
    private var iterator: AsyncStream<ConnectionEvent>.AsyncIterator
    /// The sequence number of the last envelope read.
    private(set) var lastSequence = 0

    init(_ server: ChatServer, _ userId: String, _ deviceId: String = ChatServer.defaultDeviceId) {
        self.server = server
        transport = server.connection(userId: userId, deviceId: deviceId)
        iterator = transport.events.makeAsyncIterator()
    }

    var userId: String { transport.userId }
    var deviceId: String { transport.deviceId }

    /// Connects (a fresh start unless `resumingAfter` is given).
    @discardableResult
    mutating func connect(resumingAfter sequence: Int? = nil) async throws -> ConnectResult {
        try await transport.connect(resumingAfter: sequence)
    }

    @discardableResult
    func send(_ request: ChatRequest) async throws -> ChatResponse {
        try await transport.send(request).response
    }

    /// The next element of the stream.
    mutating func next() async -> ConnectionEvent? {
        let element = await iterator.next()
        if case .event(let envelope)? = element { lastSequence = envelope.sequence }
        return element
    }

    /// The next envelope (skipping nothing: a `.disconnected` here is returned as `nil`).
    mutating func nextEnvelope() async -> EventEnvelope? {
        if case .event(let envelope)? = await next() { return envelope }
        return nil
    }

    /// Reads envelopes until the newest one the server has numbered for this device, passing
    /// over the ends of connections. The events must have been (or be about to be) delivered:
    /// events logged while the device was disconnected arrive only with a resume.
    mutating func drain() async -> [EventEnvelope] {
        let target = server.lastEventSequence(userId: userId, deviceId: deviceId)
        var envelopes: [EventEnvelope] = []
        while lastSequence < target, let element = await next() {
            if case .event(let envelope) = element { envelopes.append(envelope) }
        }
        return envelopes
    }

    /// `drain()`, events only.
    mutating func drainEvents() async -> [ChatEvent] {
        await drain().map(\.event)
    }
}

extension ChatEvent {
    /// The case name, for compact assertions.
    var name: String {
        String(describing: self).prefix { $0 != "(" }.description
    }
}

/// A server on a manual clock with users alice, bob, carol (plain) and boss (admin).
func makeServer(configuration: ServerConfiguration = ServerConfiguration()) async throws -> (ChatServer, ManualClock) {
    let clock = ManualClock()
    let server = ChatServer(clock: clock, configuration: configuration)
    for id in ["alice", "bob", "carol"] {
        try await server.registerUser(id: id, displayName: id.capitalized)
    }
    try await server.registerUser(id: "boss", displayName: "Boss", isAdmin: true)
    return (server, clock)
}

/// A connected device of `userId`.
func connected(_ server: ChatServer, _ userId: String, _ deviceId: String = ChatServer.defaultDeviceId) async throws
    -> TestDevice
{
    var device = TestDevice(server, userId, deviceId)
    try await device.connect()
    return device
}

/// The common scene: ``makeServer(configuration:)`` with alice and bob connected and channel
/// "c", a community channel alice created with bob as a member.
struct Room {
    let server: ChatServer
    let clock: ManualClock
    var alice: TestDevice
    var bob: TestDevice

    /// - Parameter drained: whether the devices have already read the creation events.
    static func make(configuration: ServerConfiguration = ServerConfiguration(), drained: Bool = false) async throws
        -> Room
    {
        let (server, clock) = try await makeServer(configuration: configuration)
        var room = Room(
            server: server, clock: clock, alice: try await connected(server, "alice"),
            bob: try await connected(server, "bob"))
        try await room.alice.send(.createChannel(ChannelDraft(type: .community, channelId: "c", userIds: ["bob"])))
        if drained {
            _ = await room.alice.drain()
            _ = await room.bob.drain()
        }
        return room
    }

    /// Alice sends `text` to "c".
    @discardableResult
    func aliceSays(_ text: String, mentioning: [String] = []) async throws -> ChatResponse {
        try await alice.send(.sendMessage(MessageDraft(channelId: "c", text: text, mentionedUserIds: mentioning)))
    }
}
