import ChatAPI

extension ChatClient {
    /// Sends a request answered with `.members` (the changed records), applies the records to
    /// the member cache on the sync engine and returns them.
    ///
    /// When this returns, every live handle reflects the change: the records are applied, and
    /// so are the events the server queued before answering (the channel values they carry —
    /// member count, the user's membership — included).
    /// - Throws: the server's `ChatError`.
    func members(answering request: ChatRequest) async throws -> [ChannelMember] {
        try await sync.perform(request) { engine, envelope in
            let records = try envelope.response.expected(\.membersValue, answering: "\(request)")
            engine.members.upsert(records)
            return records
        }
    }
}
