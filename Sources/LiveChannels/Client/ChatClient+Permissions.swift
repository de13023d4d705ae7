import ChatAPI

extension ChatClient {
    /// Whether the current user may do `permission` in a channel, as the server decides it now:
    /// the same rule that accepts or refuses the action itself (channel type, admin flag,
    /// membership, ban, roles, mutes). Rate limits are not permissions.
    ///
    /// The answer is not cached: it is asked of the server on each call.
    /// - Throws: `ChatError.notFound` for a channel the user cannot see; `.unavailable` when the
    ///   server cannot be reached.
    public func hasPermission(_ permission: Permission, forChannel channelId: String) async throws -> Bool {
        try sync.checkOpen()
        return try await transport.send(.hasPermission(permission, channelId: channelId)).response
            .expected(\.boolValue, answering: "a permission question")
    }

    /// The seed's callback form: `completion` (on the main actor) gets whether the current user
    /// may do `permission` in the channel; `false` when the question failed (e.g. the channel is
    /// not visible). Sends at once.
    public func hasPermission(
        _ permission: Permission, forChannel channelId: String,
        completion: @escaping @MainActor @Sendable (Bool) -> Void
    ) {
        Task {
            let allowed = (try? await hasPermission(permission, forChannel: channelId)) ?? false
            await completion(allowed)
        }
    }
}
