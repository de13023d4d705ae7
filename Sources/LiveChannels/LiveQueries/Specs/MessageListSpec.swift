import ChatAPI

/// Message lists: one channel's messages in ascending sequence order (oldest at index 0, as a
/// chat screen shows them), growing backward from the newest page.
///
/// Messages are numbered without gaps and keep their number when deleted, so the window is
/// contiguous; deleted messages stay listed (`isDeleted`, empty text) as the server keeps them.
struct MessageListSpec: LiveQuerySpec {
    let channelId: String
    let pageSize: Int

    var storageKey: String? { "messages:" + channelId }

    var growth: WindowGrowth { .backward }

    var channelScope: String? { channelId }

    func validate() throws {
        try MessagePageQuery(channelId: channelId, limit: pageSize).validate()
    }

    func sortKey(for message: Message) -> SortKey { MessagePageQuery.sortKey(for: message) }

    func matches(_ message: Message, in context: QueryContext, isConfirmed: () -> Bool) -> Bool {
        message.channelId == channelId
    }

    func pageRequest(after boundary: Message?, limit: Int?) -> ChatRequest {
        .queryMessages(
            MessagePageQuery(
                channelId: channelId, position: boundary.map { .before(sequence: $0.sequence) } ?? .latest,
                limit: limit ?? pageSize))
    }

    func page(in response: ChatResponse) throws -> QueryPage<Message> {
        let page = try response.expected(\.messagesValue, answering: "a message query")
        return QueryPage(items: page.messages.filter { $0.channelId == channelId }, hasMore: page.hasPrevious)
    }
}
