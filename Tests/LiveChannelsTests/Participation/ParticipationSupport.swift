import ChatAPI
import ChatServer
import LiveChannels

/// Creates a community channel as `client` (who becomes its moderator), with `members`.
func makeClub(_ id: String, by client: ChatClient, members: [String] = []) async throws {
    let builder = CommunityChannelBuilder()
    builder.setId(id)
    builder.setUserIds(members)
    _ = try await ChannelRepository(client: client).createChannel(with: builder)
}

/// The `ChatError` `body` throws, or `nil` when it succeeds.
func chatError(_ body: () async throws -> Void) async -> ChatError? {
    do {
        try await body()
        return nil
    } catch let error as ChatError {
        return error
    } catch {
        return .unavailable("unexpected error \(error)")
    }
}

extension ChatError {
    /// The error's case name, for comparing causes without their messages.
    var cause: String {
        switch self {
        case .notFound: "notFound"
        case .alreadyExists: "alreadyExists"
        case .notAllowed: "notAllowed"
        case .forbidden: "forbidden"
        case .invalidArgument: "invalidArgument"
        case .limitExceeded: "limitExceeded"
        case .rateLimited: "rateLimited"
        case .unavailable: "unavailable"
        case .unauthorized: "unauthorized"
        }
    }
}

/// Sends a message through the user's own client transport (the server's rules apply).
func send(_ text: String, in channelId: String, by client: ChatClient) async throws {
    _ = try await client.transport.send(.sendMessage(MessageDraft(channelId: channelId, text: text)))
}
