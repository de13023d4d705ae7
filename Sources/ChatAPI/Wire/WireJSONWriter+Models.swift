import Foundation

/// The models of the hot frames, each written as its `Codable` conformance encodes it with
/// `WireCodec`'s `JSONEncoder`: the same keys (in declaration order), optional fields left out
/// when `nil` (the synthesized `encodeIfPresent`), dates as seconds since 1970, `version`
/// included, enums with raw values as their raw value.
///
/// A model whose `Codable` changes must change here too: `WireJSONWriterTests` compares both
/// writings of random values of every model.
extension WireJSONWriter {
    /// Writes `"name":value` (a value that needs no throwing).
    package mutating func field(_ name: StaticString, _ value: String) {
        key(name)
        string(value)
    }

    /// Writes `"name":value`.
    package mutating func field(_ name: StaticString, _ value: Int) {
        key(name)
        int(value)
    }

    /// Writes `"name":value`.
    package mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        bool(value)
    }

    /// Writes `"name":[…]`.
    package mutating func field(_ name: StaticString, _ values: [String]) {
        key(name)
        strings(values)
    }

    /// Writes `"name":seconds`.
    package mutating func field(_ name: StaticString, _ value: Date) throws(Unwritable) {
        key(name)
        try date(value)
    }

    /// Writes `"name":value`, or nothing for `nil` (the synthesized `encodeIfPresent`).
    package mutating func fieldIfPresent(_ name: StaticString, _ value: String?) {
        if let value { field(name, value) }
    }

    /// Writes `"name":seconds`, or nothing for `nil`.
    package mutating func fieldIfPresent(_ name: StaticString, _ value: Date?) throws(Unwritable) {
        if let value { try field(name, value) }
    }

    /// Writes `"metadata":{…}` (see ``metadata(_:)``).
    package mutating func metadataField(_ members: [String: JSON]) throws(Unwritable) {
        key("metadata")
        try metadata(members)
    }

    /// Writes a channel as `Channel.encode(to:)` does: its stored fields, then `version`.
    ///
    /// The channel written last into this writer's buffer, written again as the same value
    /// (unchanged since), is copied from there: the events of one change share one channel value.
    package mutating func channel(_ channel: Channel) throws(Unwritable) {
        if copyWrittenChannel(channel) { return }
        try writeChannel(channel) { writer throws(Unwritable) in try writer.channelFields(channel) }
    }

    /// Writes `channel`'s object, field by field.
    private mutating func channelFields(_ channel: Channel) throws(Unwritable) {
        beginObject()
        field("channelId", channel.channelId)
        field("isDistinct", channel.isDistinct)
        try metadataField(channel.metadata)
        field("type", channel.type.rawValue)
        field("tags", channel.tags)
        field("isMuted", channel.isMuted)
        field("isRateLimited", channel.isRateLimited)
        field("rateLimit", channel.rateLimit)
        key("rateLimitWindow")
        try double(channel.rateLimitWindow)
        fieldIfPresent("displayName", channel.displayName)
        field("memberCount", channel.memberCount)
        field("messageCount", channel.messageCount)
        try field("lastActivity", channel.lastActivity)
        try field("createdAt", channel.createdAt)
        try field("updatedAt", channel.updatedAt)
        fieldIfPresent("avatarFileId", channel.avatarFileId)
        fieldIfPresent("creatorId", channel.creatorId)
        field("isDeleted", channel.isDeleted)
        try fieldIfPresent("lastMessageAt", channel.lastMessageAt)
        field("lastSequence", channel.lastSequence)
        field("currentUserMembership", channel.currentUserMembership.rawValue)
        field("readSequence", channel.readSequence)
        field("hasMention", channel.hasMention)
        field("version", channel.version)
        endObject()
    }

    /// Writes a member record (its profile, when known, nested as a user).
    package mutating func member(_ member: ChannelMember) throws(Unwritable) {
        beginObject()
        field("channelId", member.channelId)
        field("userId", member.userId)
        field("roles", member.roles)
        field("membership", member.membership.rawValue)
        try fieldIfPresent("mutedUntil", member.mutedUntil)
        field("isMuted", member.isMuted)
        try field("joinedAt", member.joinedAt)
        field("readSequence", member.readSequence)
        if let user = member.user {
            key("user")
            try self.user(user)
        }
        field("version", member.version)
        endObject()
    }

    /// Writes a message.
    package mutating func message(_ message: Message) throws(Unwritable) {
        beginObject()
        field("messageId", message.messageId)
        field("channelId", message.channelId)
        field("sequence", message.sequence)
        field("userId", message.userId)
        field("text", message.text)
        field("mentionedUserIds", message.mentionedUserIds)
        try metadataField(message.metadata)
        try field("createdAt", message.createdAt)
        try fieldIfPresent("editedAt", message.editedAt)
        field("isDeleted", message.isDeleted)
        field("version", message.version)
        endObject()
    }

    /// Writes a user.
    package mutating func user(_ user: User) throws(Unwritable) {
        beginObject()
        field("userId", user.userId)
        fieldIfPresent("displayName", user.displayName)
        try metadataField(user.metadata)
        field("isAdmin", user.isAdmin)
        try field("createdAt", user.createdAt)
        try field("updatedAt", user.updatedAt)
        field("isOnline", user.isOnline)
        try fieldIfPresent("lastActiveAt", user.lastActiveAt)
        field("version", user.version)
        endObject()
    }

    /// Writes a flag report: its subject as the synthesized enum (`{"message":{"messageId":…}}`
    /// or `{"user":{"userId":…}}`), then who flagged it.
    package mutating func flagReport(_ report: FlagReport) {
        beginObject()
        key("subject")
        switch report.subject {
        case .message(let messageId):
            beginCase("message")
            field("messageId", messageId)
        case .user(let userId):
            beginCase("user")
            field("userId", userId)
        }
        endCase()
        field("flaggedBy", report.flaggedBy)
        endObject()
    }

    /// Writes a channel's content filters (the allowed domains left out when `nil`).
    package mutating func moderationSettings(_ settings: ModerationSettings) {
        beginObject()
        field("blockedWords", settings.blockedWords)
        field("blockedWordAction", settings.blockedWordAction.rawValue)
        if let domains = settings.allowedURLDomains { field("allowedURLDomains", domains) }
        endObject()
    }

    /// Writes a page, each item by `item` (its cursor left out when `nil`).
    ///
    /// - Complexity: O(size of the page).
    package mutating func page<Element>(
        _ page: Page<Element>, item: (inout WireJSONWriter, Element) throws(Unwritable) -> Void
    ) throws(Unwritable) {
        beginObject()
        key("items")
        beginArray()
        for element in page.items { try item(&self, element) }
        endArray()
        if let next = page.next {
            key("next")
            try cursor(next)
        }
        field("hasNext", page.hasNext)
        endObject()
    }

    /// Writes a page of messages.
    package mutating func messagePage(_ page: MessagePage) throws(Unwritable) {
        beginObject()
        key("messages")
        beginArray()
        for message in page.messages { try self.message(message) }
        endArray()
        field("hasPrevious", page.hasPrevious)
        field("hasNext", page.hasNext)
        endObject()
    }

    /// Writes a page cursor: its ordering and its sort key (`SortKey.encode(to:)`: values,
    /// directions, id; each value as the synthesized `SortValue` enum).
    package mutating func cursor(_ cursor: PageCursor) throws(Unwritable) {
        beginObject()
        field("ordering", cursor.ordering)
        key("key")
        beginObject()
        key("values")
        beginArray()
        for value in cursor.key.values { try sortValue(value) }
        endArray()
        key("ascending")
        beginArray()
        for ascending in cursor.key.ascending { bool(ascending) }
        endArray()
        field("id", cursor.key.id)
        endObject()
        endObject()
    }

    /// Writes one component of a sort key.
    private mutating func sortValue(_ value: SortValue) throws(Unwritable) {
        switch value {
        case .missing:
            beginCase("missing")
        case .number(let number):
            beginCase("number")
            key("_0")
            try double(number)
        case .string(let folded, let original):
            beginCase("string")
            field("folded", folded)
            field("original", original)
        case .object(let text):
            beginCase("object")
            field("_0", text)
        case .array(let text):
            beginCase("array")
            field("_0", text)
        case .bool(let flag):
            beginCase("bool")
            field("_0", flag)
        }
        endCase()
    }
}
