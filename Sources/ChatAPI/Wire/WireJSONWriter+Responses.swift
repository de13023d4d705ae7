/// Responses, as `ResponseEnvelope`'s and `ChatResponse`'s synthesized `Codable` write them:
/// `{"position":…,"revision":…,"response":{"case":{…}}}`, a case without values as
/// `{"empty":{}}`, one with an unlabelled value as `{"case":{"_0":VALUE}}`.
extension WireJSONWriter {
    /// Writes a response envelope (the `envelope` of a response frame).
    ///
    /// - Throws: ``WireJSONWriter/Unwritable`` for a value `JSONEncoder` must decide on.
    /// - Complexity: O(size of the response).
    package mutating func responseEnvelope(_ envelope: ResponseEnvelope) throws(Unwritable) {
        beginObject()
        field("position", envelope.position)
        field("revision", envelope.revision)
        key("response")
        try response(envelope.response)
        endObject()
    }

    /// Writes a response.
    ///
    /// - Complexity: O(size of the response).
    package mutating func response(_ response: ChatResponse) throws(Unwritable) {
        switch response {
        case .empty:
            beginCase("empty")
        case .channel(let channel):
            beginCase("channel")
            key("_0")
            try self.channel(channel)
        case .channels(let page):
            beginCase("channels")
            key("_0")
            try self.page(page) { writer, channel throws(Unwritable) in try writer.channel(channel) }
        case .members(let members):
            beginCase("members")
            key("_0")
            beginArray()
            for member in members { try self.member(member) }
            endArray()
        case .memberPage(let page):
            beginCase("memberPage")
            key("_0")
            try self.page(page) { writer, member throws(Unwritable) in try writer.member(member) }
        case .message(let message):
            beginCase("message")
            key("_0")
            try self.message(message)
        case .messages(let page):
            beginCase("messages")
            key("_0")
            try messagePage(page)
        case .user(let user):
            beginCase("user")
            key("_0")
            try self.user(user)
        case .users(let page):
            beginCase("users")
            key("_0")
            try self.page(page) { writer, user throws(Unwritable) in try writer.user(user) }
        case .bool(let value):
            beginCase("bool")
            field("_0", value)
        case .flagReports(let reports):
            beginCase("flagReports")
            key("_0")
            beginArray()
            for report in reports { flagReport(report) }
            endArray()
        case .moderationSettings(let settings):
            beginCase("moderationSettings")
            key("_0")
            moderationSettings(settings)
        }
        endCase()
    }
}
