import ChatAPI

/// Input checks shared by every request path. Each throws the error of the first rule broken,
/// naming the field; see ``InputLimits`` for the rules.
enum InputCheck {
    /// An id of a user, device, channel, message or avatar file: see `IdentifierRules` (ids are
    /// refused, never trimmed or normalized).
    static func id(_ value: String, field: String) throws(ChatError) {
        try IdentifierRules.validate(value, field: field)
    }

    static func ids(_ values: [String], field: String) throws(ChatError) {
        if values.count > InputLimits.maxUserIdsPerRequest {
            throw .invalidArgument(
                field: field,
                reason: "must name at most \(InputLimits.maxUserIdsPerRequest) users")
        }
        for value in values { try id(value, field: field) }
    }

    static func displayName(_ value: String?, field: String = "displayName") throws(ChatError) {
        guard let value else { return }
        try boundedText(
            value, field: field, maxLength: InputLimits.maxDisplayNameLength, maxBytes: InputLimits.maxDisplayNameBytes)
        try noControlCharacters(value, field: field)
    }

    static func tags(_ values: [String]) throws(ChatError) {
        if values.count > InputLimits.maxTagCount {
            throw .invalidArgument(
                field: "tags", reason: "at most \(InputLimits.maxTagCount) tags are allowed")
        }
        for value in values {
            try label(value, field: "tags", maxLength: InputLimits.maxTagLength)
        }
    }

    static func role(_ value: String) throws(ChatError) {
        try label(value, field: "role", maxLength: InputLimits.maxRoleLength)
    }

    /// Metadata of a channel, message or user, on create and update alike: nested at most
    /// ``InputLimits/maxJSONDepth`` deep and finite (`invalidArgument`), then at most 100 KB
    /// encoded (`limitExceeded`). The structure is checked first, without recursion, so the
    /// size check never encodes a value that is too deep or not encodable.
    static func metadata(_ value: [String: JSON], field: String = "metadata") throws(ChatError) {
        try JSON.validateMetadata(value, field: field)
    }

    /// Metadata that arrived as an arbitrary JSON value: it must be an object.
    static func metadata(_ value: JSON, field: String = "metadata") throws(ChatError) -> [String: JSON] {
        guard let object = value.objectValue else {
            throw .invalidArgument(field: field, reason: "must be a JSON object")
        }
        try metadata(object, field: field)
        return object
    }

    /// Message text: see ``InputLimits/maxMessageLength`` (characters and bytes) and
    /// ``InputLimits/maxScalarsPerCharacter``; no control characters but newlines and tabs.
    static func messageText(_ value: String) throws(ChatError) {
        // Most text is short ASCII without control characters: one pass over its bytes decides.
        if isShortPlainASCII(value, maxLength: InputLimits.maxMessageLength) { return }
        try messageTextByCharacters(value)
    }

    /// Whether `value` is at most `maxLength` bytes, all printable ASCII, new lines, tabs or
    /// carriage returns: then it has at most `maxLength` characters of at most two scalars
    /// ("\r\n") each, and no control character ``messageText(_:)`` refuses.
    static func isShortPlainASCII(_ value: String, maxLength: Int) -> Bool {
        let bytes = value.utf8
        guard bytes.count <= maxLength, bytes.count <= InputLimits.maxMessageBytes else { return false }
        return bytes.allSatisfy { (0x20..<0x7F).contains($0) || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
    }

    /// ``messageText(_:)`` character by character (what the ASCII shortcut must agree with).
    static func messageTextByCharacters(_ value: String) throws(ChatError) {
        try boundedText(
            value, field: "text", maxLength: InputLimits.maxMessageLength, maxBytes: InputLimits.maxMessageBytes)
        let allowed: Set<Unicode.Scalar> = ["\n", "\t", "\r"]
        if value.unicodeScalars.contains(where: { isControl($0) && !allowed.contains($0) }) {
            throw .invalidArgument(field: "text", reason: "must not contain control characters")
        }
    }

    /// A period in seconds: positive and at most ``InputLimits/maxPeriod``, or -1 for "no end".
    /// NaN and infinities are refused (every comparison below is false for NaN).
    static func period(_ value: Double, field: String) throws(ChatError) {
        guard value == -1 || (value > 0 && value <= InputLimits.maxPeriod) else {
            throw .invalidArgument(
                field: field,
                reason:
                    "must be a positive number of seconds up to \(Int(InputLimits.maxPeriod)) (ten years), or -1 for no end"
            )
        }
    }

    /// A rate limit's window in seconds: positive and at most ``InputLimits/maxRateLimitWindow``.
    static func rateLimitWindow(_ value: Double) throws(ChatError) {
        guard value > 0 && value <= InputLimits.maxRateLimitWindow else {
            throw .invalidArgument(
                field: "window",
                reason: "must be a positive number of seconds up to \(Int(InputLimits.maxRateLimitWindow)) (one day)")
        }
    }

    /// A rate limit's message count: 1 to ``InputLimits/maxRateLimitMessages``.
    static func rateLimitMessages(_ value: Int) throws(ChatError) {
        guard (1...InputLimits.maxRateLimitMessages).contains(value) else {
            throw .invalidArgument(
                field: "limit", reason: "must be between 1 and \(InputLimits.maxRateLimitMessages) messages")
        }
    }

    /// A sequence number a request names: 0 to ``InputLimits/maxSequence``.
    static func sequence(_ value: Int, field: String) throws(ChatError) {
        guard (0...InputLimits.maxSequence).contains(value) else {
            throw .invalidArgument(field: field, reason: "must be between 0 and \(InputLimits.maxSequence)")
        }
    }

    static func pageSize(_ value: Int) throws(ChatError) {
        guard (1...InputLimits.maxPageSize).contains(value) else {
            throw .invalidArgument(
                field: "pageSize", reason: "must be between 1 and \(InputLimits.maxPageSize)")
        }
    }

    private static func label(_ value: String, field: String, maxLength: Int) throws(ChatError) {
        if value.isEmpty {
            throw .invalidArgument(field: field, reason: "each must be 1 to \(maxLength) characters")
        }
        try boundedText(value, field: field, maxLength: maxLength, maxBytes: 4 * maxLength)
        try noControlCharacters(value, field: field)
    }

    /// At most `maxBytes` UTF-8 bytes (checked first, in O(1) for native strings), at most
    /// `maxLength` characters, and at most ``InputLimits/maxScalarsPerCharacter`` scalars in
    /// any one character.
    ///
    /// - Complexity: O(`maxBytes`) at most.
    private static func boundedText(_ value: String, field: String, maxLength: Int, maxBytes: Int) throws(ChatError) {
        if value.utf8.count > maxBytes {
            throw .invalidArgument(field: field, reason: "must be at most \(maxBytes) bytes in UTF-8")
        }
        var length = 0
        for character in value {
            length += 1
            if length > maxLength {
                throw .invalidArgument(field: field, reason: "must be at most \(maxLength) characters")
            }
            if character.unicodeScalars.count > InputLimits.maxScalarsPerCharacter {
                throw .invalidArgument(
                    field: field,
                    reason:
                        "a character may carry at most \(InputLimits.maxScalarsPerCharacter) Unicode scalars (combining marks)"
                )
            }
        }
    }

    private static func noControlCharacters(_ value: String, field: String) throws(ChatError) {
        if value.unicodeScalars.contains(where: isControl) {
            throw .invalidArgument(field: field, reason: "must not contain control characters")
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
    }
}
