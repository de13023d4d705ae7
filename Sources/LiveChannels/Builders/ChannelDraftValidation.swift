import ChatAPI

/// The client-side checks of a `ChannelDraft`: what can be known without asking the server.
///
/// The limits mirror the server's documented input limits, so a draft that passes here fails on
/// the server only for reasons that need server state (an id in use, an unknown user).
enum ChannelDraftValidation {
    /// Display names: at most this many characters.
    static let maxDisplayNameLength = 256
    /// Tags per channel.
    static let maxTagCount = 20
    /// Characters per tag.
    static let maxTagLength = 64
    /// User ids named in one request.
    static let maxUserIds = 1_000

    /// Throws unless `draft` satisfies every client-checkable rule; see `ChannelBuilder`.
    ///
    /// - Complexity: O(size of the draft).
    static func validate(_ draft: ChannelDraft) throws(ChatError) {
        if let id = draft.channelId { try identifier(id, field: "channelId") }
        try userIds(draft.userIds, requireOne: draft.type == .conversation)
        if let name = draft.displayName { try displayName(name) }
        if let avatar = draft.avatarFileId { try identifier(avatar, field: "avatarFileId") }
        try tags(draft.tags)
        try metadata(draft.metadata)
    }

    /// An id as the server accepts it: see `IdentifierRules` (non-empty, trimmed, NFC, no
    /// control, bidi or zero-width characters, at most 128 characters).
    static func identifier(_ value: String, field: String) throws(ChatError) {
        try IdentifierRules.validate(value, field: field)
    }

    static func userIds(_ values: [String], requireOne: Bool) throws(ChatError) {
        if requireOne && values.isEmpty {
            throw .invalidArgument(
                field: "userIds", reason: "a conversation needs the id of at least one other user")
        }
        if values.count > maxUserIds {
            throw .invalidArgument(
                field: "userIds",
                reason: "must name at most \(maxUserIds) users, got \(values.count)")
        }
        for value in values { try identifier(value, field: "userIds") }
    }

    static func displayName(_ value: String) throws(ChatError) {
        if value.count > maxDisplayNameLength {
            throw .invalidArgument(
                field: "displayName", reason: "must be at most \(maxDisplayNameLength) characters")
        }
        try noControlCharacters(value, field: "displayName")
    }

    static func tags(_ values: [String]) throws(ChatError) {
        if values.count > maxTagCount {
            throw .invalidArgument(
                field: "tags",
                reason: "at most \(maxTagCount) tags are allowed, got \(values.count)")
        }
        for value in values {
            if value.allSatisfy(\.isWhitespace) || value.count > maxTagLength {
                throw .invalidArgument(
                    field: "tags",
                    reason:
                        "each tag must be 1 to \(maxTagLength) characters and not only white space")
            }
            try noControlCharacters(value, field: "tags")
        }
    }

    /// The server's metadata rule (`JSON.validateMetadata`): nested at most `JSON.maximumDepth`
    /// deep and finite (`invalidArgument`), then at most 100 KB encoded (`limitExceeded`);
    /// checked without recursion, so a hostile value cannot overflow the stack.
    static func metadata(_ value: [String: JSON]) throws(ChatError) {
        try JSON.validateMetadata(value)
    }

    private static func noControlCharacters(_ value: String, field: String) throws(ChatError) {
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw .invalidArgument(field: field, reason: "must not contain control characters")
        }
    }
}
