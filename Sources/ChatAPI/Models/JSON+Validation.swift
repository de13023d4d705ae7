import Foundation

/// The rules every stored JSON value (channel, message and user metadata) and every filter
/// operand obeys, shared by the server and the SDK so the two never disagree:
///
/// - nested at most ``maximumDepth`` (32) arrays and objects deep;
/// - finite numbers only (JSON has no NaN or infinity);
/// - metadata: an object of at most ``maximumMetadataBytes`` (100 KB) encoded.
///
/// The checks walk the value with an explicit stack, never deeper than the limit, so a hostile
/// value nested thousands deep is refused instead of overflowing the call stack; they run before
/// anything encodes, hashes or evaluates the value.
extension JSON {
    /// The deepest nesting of arrays and objects a stored value or a filter operand may have:
    /// a scalar has depth 0, `["a": 1]` depth 1, `["a": ["b": 1]]` depth 2.
    public static let maximumDepth = 32

    /// The largest metadata object, measured as its compact UTF-8 JSON encoding: 100 KB
    /// (102,400 bytes).
    public static let maximumMetadataBytes = 100 * 1024

    /// The deepest coding path at which a `JSON` value is decoded or encoded (the enclosing
    /// document's levels included): deeper documents fail to decode, and deeper values fail to
    /// encode, instead of recursing without bound. Generous, so that any value within
    /// ``maximumDepth`` decodes and encodes wherever it is embedded.
    public static let maximumDecodingDepth = 128

    /// Throws `ChatError.invalidArgument(field:reason:)` naming `field` when the value is
    /// nested deeper than `maximumDepth` or holds a NaN or infinite number.
    ///
    /// - Complexity: O(elements visited); never recurses, never descends below `maximumDepth`.
    public func validate(field: String, maximumDepth: Int = JSON.maximumDepth) throws(ChatError) {
        var pending: [(value: JSON, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .null, .bool, .string:
                continue
            case .number(let number):
                guard number.isFinite else {
                    throw .invalidArgument(field: field, reason: "numbers must be finite; JSON has no NaN or infinity")
                }
            case .array(let elements):
                try Self.enter(depth + 1, maximumDepth: maximumDepth, field: field)
                pending.append(contentsOf: elements.lazy.map { ($0, depth + 1) })
            case .object(let members):
                try Self.enter(depth + 1, maximumDepth: maximumDepth, field: field)
                pending.append(contentsOf: members.values.lazy.map { ($0, depth + 1) })
            }
        }
    }

    /// Checks metadata: its structure (``validate(field:maximumDepth:)``: `invalidArgument`),
    /// then its size (`ChatError.limitExceeded` over ``maximumMetadataBytes``). The one check of
    /// every metadata path, creating or updating, so one cause always gives one error case.
    ///
    /// - Complexity: O(size of the metadata).
    public static func validateMetadata(_ metadata: [String: JSON], field: String = "metadata") throws(ChatError) {
        if metadata.isEmpty { return }
        let object = JSON.object(metadata)
        try object.validate(field: field)
        let size = object.encodedSize
        if size > maximumMetadataBytes {
            throw .limitExceeded("\(field) is \(size) bytes encoded; the limit is \(maximumMetadataBytes) (100 KB)")
        }
    }

    /// Whether arrays and objects nest more than `limit` deep in this value; an explicit
    /// stack, no recursion.
    ///
    /// - Complexity: O(elements down to depth `limit`).
    func nestsDeeper(than limit: Int) -> Bool {
        var pending: [(value: JSON, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .array(let elements):
                if depth + 1 > limit { return true }
                pending.append(contentsOf: elements.lazy.map { ($0, depth + 1) })
            case .object(let members):
                if depth + 1 > limit { return true }
                pending.append(contentsOf: members.values.lazy.map { ($0, depth + 1) })
            case .null, .bool, .number, .string:
                continue
            }
        }
        return false
    }

    private static func enter(_ depth: Int, maximumDepth: Int, field: String) throws(ChatError) {
        if depth > maximumDepth {
            throw .invalidArgument(
                field: field, reason: "must not nest arrays and objects more than \(maximumDepth) deep")
        }
    }
}
