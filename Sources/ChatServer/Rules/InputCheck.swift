import ChatAPI
import Foundation

/// Input checks shared by every request path. Each returns the error to throw, naming the field.
enum InputCheck {
    static func id(_ value: String, field: String) throws(ChatError) {
        if value.isEmpty { throw .invalidArgument(field: field, reason: "must not be empty") }
        if value.count > InputLimits.maxIdLength {
            throw .invalidArgument(
                field: field, reason: "must be at most \(InputLimits.maxIdLength) characters")
        }
        try noControlCharacters(value, field: field)
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
        if value.count > InputLimits.maxDisplayNameLength {
            throw .invalidArgument(
                field: field,
                reason: "must be at most \(InputLimits.maxDisplayNameLength) characters")
        }
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

    static func metadata(_ value: [String: JSON], field: String = "metadata") throws(ChatError) {
        if value.isEmpty { return }
        let size = JSON.object(value).encodedSize
        if size > InputLimits.maxMetadataBytes {
            throw .limitExceeded(
                "\(field) is \(size) bytes encoded; the limit is \(InputLimits.maxMetadataBytes)")
        }
    }

    /// Metadata that arrived as an arbitrary JSON value: it must be an object.
    static func metadata(_ value: JSON, field: String = "metadata") throws(ChatError) -> [String: JSON] {
        guard let object = value.objectValue else {
            throw .invalidArgument(field: field, reason: "must be a JSON object")
        }
        try metadata(object, field: field)
        return object
    }

    static func messageText(_ value: String) throws(ChatError) {
        if value.count > InputLimits.maxMessageLength {
            throw .invalidArgument(
                field: "text", reason: "must be at most \(InputLimits.maxMessageLength) characters")
        }
        let allowed: Set<Unicode.Scalar> = ["\n", "\t", "\r"]
        if value.unicodeScalars.contains(where: { isControl($0) && !allowed.contains($0) }) {
            throw .invalidArgument(field: "text", reason: "must not contain control characters")
        }
    }

    /// A period in seconds: finite and positive, or -1 for "no end".
    static func period(_ value: Double, field: String) throws(ChatError) {
        guard value.isFinite, value > 0 || value == -1 else {
            throw .invalidArgument(
                field: field, reason: "must be a positive number of seconds, or -1 for no end")
        }
    }

    static func pageSize(_ value: Int) throws(ChatError) {
        guard (1...InputLimits.maxPageSize).contains(value) else {
            throw .invalidArgument(
                field: "pageSize", reason: "must be between 1 and \(InputLimits.maxPageSize)")
        }
    }

    private static func label(_ value: String, field: String, maxLength: Int) throws(ChatError) {
        if value.isEmpty || value.count > maxLength {
            throw .invalidArgument(field: field, reason: "each must be 1 to \(maxLength) characters")
        }
        try noControlCharacters(value, field: field)
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
