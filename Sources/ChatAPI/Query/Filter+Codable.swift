/// The wire form of filters, MongoDB style:
///
/// - a condition is `{"key": {"$op": operand}}`, e.g. `{"memberCount": {"$gt": 10}}`,
///   `{"metadata.state": {"$eq": "LA"}}`, `{"members": {"$all": ["alice"]}}`;
/// - a combination is `{"$and": [...]}`, `{"$or": [...]}` or `{"$nor": [...]}`.
///
/// Encoding always produces those single-key objects, so decoding an encoded filter gives back an
/// equal one. Decoding also accepts MongoDB's shorthands: several keys in one object (an implicit
/// `$and`, in key order), several operators on one key (likewise), and `{"key": value}` for
/// `$eq` when `value` is not an object of `$` operators. Metadata keys carry the `"metadata."`
/// prefix. Decoding an unknown key or operator, or an operand of the wrong JSON shape, throws
/// `ChatError.invalidArgument` naming the key; type checks beyond shape are `validate()`'s job.
/// A document nested deeper than `JSON.maximumDecodingDepth` coding-path levels throws
/// `ChatError.invalidArgument(field: "filter")` instead of recursing without bound; encoding
/// such a filter throws an `EncodingError`.
extension Filter: Codable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: any Encoder) throws {
        if encoder.codingPath.count > JSON.maximumDecodingDepth {
            // A placeholder, not the value: describing a hostile value would recurse too.
            throw EncodingError.invalidValue(
                "(too deep to describe)",
                EncodingError.Context(codingPath: [], debugDescription: "filter nested too deep to encode"))
        }
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .and(let filters): try container.encode(filters, forKey: Key("$and"))
        case .or(let filters): try container.encode(filters, forKey: Key("$or"))
        case .nor(let filters): try container.encode(filters, forKey: Key("$nor"))
        case .condition(let field, let op):
            try container.encode(
                JSON.object([op.wireName: op.operandJSON]), forKey: Key(field.name))
        }
    }

    public init(from decoder: any Decoder) throws {
        if decoder.codingPath.count > JSON.maximumDecodingDepth {
            throw ChatError.invalidArgument(
                field: "filter", reason: "must not nest and/or/nor more than \(Filter.maximumDepth) deep")
        }
        let container = try decoder.container(keyedBy: Key.self)
        var parts: [Filter] = []
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
            switch key.stringValue {
            case "$and": parts.append(.and(try container.decode([Filter].self, forKey: key)))
            case "$or": parts.append(.or(try container.decode([Filter].self, forKey: key)))
            case "$nor": parts.append(.nor(try container.decode([Filter].self, forKey: key)))
            default:
                let name = key.stringValue
                guard let field = ChannelFilterField(name: name) else {
                    throw ChatError.invalidArgument(field: name, reason: "unknown filter key")
                }
                let spec = try container.decode(JSON.self, forKey: key)
                parts += try Self.operators(in: spec, key: name).map { .condition(field, $0) }
            }
        }
        self = parts.count == 1 ? parts[0] : .and(parts)
    }

    /// The operators of `{"$op": operand, ...}`, or `$eq` of a literal value.
    private static func operators(in spec: JSON, key: String) throws -> [FilterOperator] {
        guard let object = spec.objectValue, !object.isEmpty,
            object.keys.allSatisfy({ $0.hasPrefix("$") })
        else { return [.equal(spec)] }
        return try object.keys.sorted().map { name in
            try FilterOperator(wireName: name, operand: object[name] ?? .null, key: key)
        }
    }
}

extension FilterOperator {
    /// The operand as wire JSON.
    var operandJSON: JSON {
        switch self {
        case .equal(let value), .notEqual(let value), .greater(let value),
            .greaterOrEqual(let value), .less(let value), .lessOrEqual(let value),
            .contains(let value):
            value
        case .in(let values), .notIn(let values), .containsAll(let values): .array(values)
        case .exists(let flag): .bool(flag)
        case .autocomplete(let text): .string(text)
        }
    }

    /// The operator named `wireName` with `operand`; throws `ChatError.invalidArgument`
    /// naming `key` for an unknown operator or an operand of the wrong shape.
    init(wireName: String, operand: JSON, key: String) throws {
        func list() throws -> [JSON] {
            guard let values = operand.arrayValue else {
                throw ChatError.invalidArgument(field: key, reason: "\(wireName) needs an array")
            }
            return values
        }
        switch wireName {
        case "$eq": self = .equal(operand)
        case "$ne": self = .notEqual(operand)
        case "$gt": self = .greater(operand)
        case "$gte": self = .greaterOrEqual(operand)
        case "$lt": self = .less(operand)
        case "$lte": self = .lessOrEqual(operand)
        case "$in": self = .in(try list())
        case "$nin": self = .notIn(try list())
        case "$all": self = .containsAll(try list())
        case "$contains": self = .contains(operand)
        case "$exists":
            guard let flag = operand.boolValue else {
                throw ChatError.invalidArgument(field: key, reason: "$exists needs true or false")
            }
            self = .exists(flag)
        case "$autocomplete":
            guard let text = operand.stringValue else {
                throw ChatError.invalidArgument(field: key, reason: "$autocomplete needs a string")
            }
            self = .autocomplete(text)
        default:
            throw ChatError.invalidArgument(field: key, reason: "unknown operator \(wireName)")
        }
    }
}
