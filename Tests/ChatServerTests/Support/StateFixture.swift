import ChatAPI
import Foundation

@testable import ChatServer

/// A server state with users alice, bob, carol, dave (plain) and boss (admin), at a fixed time.
struct StateFixture {
    var state = ServerState()
    var now = Date(timeIntervalSince1970: 1_767_225_600)

    init(configuration: ServerConfiguration = ServerConfiguration()) {
        state = ServerState(configuration: configuration)
        for id in ["alice", "bob", "carol", "dave"] {
            try! state.registerUser(id: id, displayName: id.capitalized, isAdmin: false, now: now)
        }
        try! state.registerUser(id: "boss", displayName: "Boss", isAdmin: true, now: now)
        _ = state.drainEmissions()
    }

    /// Creates a channel as `creator` (the console when `nil`) and returns its id.
    @discardableResult
    mutating func create(
        _ type: ChannelType, id: String? = nil, by creator: String? = "alice", members: [String] = []
    ) throws -> String {
        let caller: Caller = creator.map { .user($0) } ?? .console
        return try state.createChannel(
            ChannelDraft(type: type, channelId: id, userIds: members), by: caller, now: now
        ).channelId
    }

    func channel(_ id: String, for viewer: String?) -> Channel {
        state.render(state.channels[id]!, for: viewer)
    }

    /// Moves time forward and runs the expiries, as the server does before every operation.
    mutating func advance(_ seconds: TimeInterval) {
        now += seconds
        state.expireTimers(now: now)
    }
}

/// Runs `body` and returns the `ChatError` it throws (`nil` if it succeeds).
func chatError(_ body: () throws -> Void) -> ChatError? {
    do {
        try body()
        return nil
    } catch let error as ChatError {
        return error
    } catch {
        return .unavailable("unexpected error \(error)")
    }
}

extension ChatError {
    /// The case name, to compare errors without their messages.
    var kind: String {
        switch self {
        case .notFound: "notFound"
        case .alreadyExists: "alreadyExists"
        case .notAllowed: "notAllowed"
        case .forbidden: "forbidden"
        case .invalidArgument(let field, _): "invalidArgument(\(field))"
        case .limitExceeded: "limitExceeded"
        case .rateLimited: "rateLimited"
        case .unavailable: "unavailable"
        case .unauthorized: "unauthorized"
        }
    }
}

/// Shorthands for rule tests, over the request-shaped operations.
extension ServerState {
    mutating func sendMessage(
        _ text: String, mentionedUserIds: [String] = [], to channelId: String, by userId: String, now: Date
    ) throws(ChatError) -> Message {
        try sendMessage(
            MessageDraft(channelId: channelId, text: text, mentionedUserIds: mentionedUserIds), by: userId, now: now)
    }

    @discardableResult
    mutating func editMessage(_ messageId: String, text: String, by caller: Caller, now: Date) throws(ChatError)
        -> Message
    {
        let channelId = messageLocations[messageId]?.channelId ?? "unknown"
        return try editMessage(messageId, MessageDraft(channelId: channelId, text: text), by: caller, now: now)
    }

    @discardableResult
    mutating func deleteMessage(_ messageId: String, by caller: Caller, now: Date) throws(ChatError) -> Message {
        try deleteMessage(messageId, in: messageLocations[messageId]?.channelId ?? "unknown", by: caller, now: now)
    }

    @discardableResult
    mutating func updateChannel(_ channelId: String, _ changes: ChannelChanges, by caller: Caller, now: Date)
        throws(ChatError) -> Channel
    {
        var changes = changes
        changes.channelId = channelId
        return try updateChannel(changes, by: caller, now: now)
    }
}
