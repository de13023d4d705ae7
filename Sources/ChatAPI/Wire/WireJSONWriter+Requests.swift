/// The requests a client sends most — a message, reading and typing — as `ChatRequest`'s
/// synthesized `Codable` writes them (`{"sendMessage":{"_0":DRAFT}}`,
/// `{"startTyping":{"channelId":ID}}`). The others are rare (a channel created, a page
/// queried): the writer leaves them to `JSONEncoder` (``WireJSONWriter/Unwritable/rareRequest``).
extension WireJSONWriter {
    /// Writes `{"type":"request","id":ID,"request":REQUEST}`.
    ///
    /// - Throws: ``WireJSONWriter/Unwritable/rareRequest`` for a request that is not one of the
    ///   hot ones; ``WireJSONWriter/Unwritable`` for a draft's metadata `JSONEncoder` must
    ///   decide on.
    /// - Complexity: O(size of the frame).
    package mutating func requestFrame(id: Int, request: ChatRequest) throws(Unwritable) {
        try numberedFrame("request", id: id, "request") { writer throws(Unwritable) in try writer.request(request) }
    }

    /// Writes a hot request (see the extension's comment).
    ///
    /// - Throws: as ``requestFrame(id:request:)``.
    package mutating func request(_ request: ChatRequest) throws(Unwritable) {
        switch request {
        case .sendMessage(let draft):
            beginCase("sendMessage")
            key("_0")
            try messageDraft(draft)
            endCase()
        case .startReading(let channelId): channelCase("startReading", channelId)
        case .stopReading(let channelId): channelCase("stopReading", channelId)
        case .startTyping(let channelId): channelCase("startTyping", channelId)
        case .stopTyping(let channelId): channelCase("stopTyping", channelId)
        default: throw .rareRequest
        }
    }

    /// Writes a draft as its synthesized `encode(to:)` does: every field, empty ones too, and
    /// `messageId` when there is one.
    package mutating func messageDraft(_ draft: MessageDraft) throws(Unwritable) {
        beginObject()
        field("channelId", draft.channelId)
        field("text", draft.text)
        field("mentionedUserIds", draft.mentionedUserIds)
        try metadataField(draft.metadata)
        if let messageId = draft.messageId { field("messageId", messageId) }
        endObject()
    }

    /// `{"name":{"channelId":ID}}`.
    private mutating func channelCase(_ name: StaticString, _ channelId: String) {
        beginCase(name)
        field("channelId", channelId)
        endCase()
    }
}
