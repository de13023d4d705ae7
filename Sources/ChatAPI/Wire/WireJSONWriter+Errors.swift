/// Errors, as `ChatError`'s synthesized `Codable` writes them: `{"notFound":{"_0":"…"}}`,
/// `{"invalidArgument":{"field":"…","reason":"…"}}`, `{"rateLimited":{"retryAfter":1.5}}`.
extension WireJSONWriter {
    /// Writes an error (the `error` of a failure frame).
    ///
    /// - Throws: ``WireJSONWriter/Unwritable/nonFiniteNumber`` for a `rateLimited` whose
    ///   `retryAfter` is not finite.
    /// - Complexity: O(size of the error's texts).
    package mutating func error(_ error: ChatError) throws(Unwritable) {
        switch error {
        case .notFound(let what): textCase("notFound", what)
        case .alreadyExists(let what): textCase("alreadyExists", what)
        case .notAllowed(let reason): textCase("notAllowed", reason)
        case .forbidden(let reason): textCase("forbidden", reason)
        case .invalidArgument(let field, let reason):
            beginCase("invalidArgument")
            self.field("field", field)
            self.field("reason", reason)
            endCase()
        case .limitExceeded(let what): textCase("limitExceeded", what)
        case .rateLimited(let retryAfter):
            beginCase("rateLimited")
            key("retryAfter")
            try double(retryAfter)
            endCase()
        case .unavailable(let reason): textCase("unavailable", reason)
        case .unauthorized(let reason): textCase("unauthorized", reason)
        }
    }

    /// `{"name":{"_0":"text"}}`.
    private mutating func textCase(_ name: StaticString, _ text: String) {
        beginCase(name)
        field("_0", text)
        endCase()
    }
}
