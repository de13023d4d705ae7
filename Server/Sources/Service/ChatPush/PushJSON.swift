import Foundation

/// The one way push bodies are written — APNs', FCM's and the webhook's: `Encodable` values
/// through one encoder, keys sorted (the same body, byte for byte, on every node and every
/// try) and `/` unescaped; ``PushPayload`` measures what this writes.
enum PushJSON {
    /// `value` as JSON.
    /// - Throws: `EncodingError` for a value JSON cannot hold (a non-finite number).
    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }
}
