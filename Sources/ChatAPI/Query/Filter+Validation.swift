extension Filter {
    /// The deepest nesting of `and`/`or`/`nor` a filter may have: a condition has depth 1,
    /// `.and([condition])` depth 2. Deeper filters are refused by `validate()` (field
    /// `"filter"`), before anything recurses into them.
    public static let maximumDepth = 32

    /// Throws `ChatError.invalidArgument(field:reason:)` naming the first ill-typed part:
    ///
    /// - a filter nested deeper than ``maximumDepth`` (the field is `"filter"`; checked first,
    ///   without recursion, so a hostile filter nested thousands deep cannot overflow the stack);
    /// - an operand nested deeper than `JSON.maximumDepth` or holding a NaN or infinite number
    ///   (the field is the key);
    /// - an operator the field's type does not support: comparisons on Booleans, enums, `tags`
    ///   or `members`; `contains`/`$all` on a non-array field; `autocomplete` on anything but
    ///   text, `tags` and metadata;
    /// - an operand of the wrong type (a string for `memberCount`, an unknown `ChannelType` or
    ///   `Membership` raw value, `null` for a field that is never missing, a non-number,
    ///   non-string bound for a metadata comparison, an empty `autocomplete` text);
    /// - an empty or malformed metadata path (the field is `"metadata.<path>"`);
    /// - an empty `or`/`nor` (the field is `"$or"`/`"$nor"`).
    ///
    /// Metadata values are untyped, so any operand type is valid for `equal`, `in`, `contains`.
    ///
    /// - Complexity: O(size of the filter).
    public func validate() throws {
        try validateDepth()
        try validateParts()
    }

    /// Throws unless the filter is at most ``maximumDepth`` deep; an explicit stack, no recursion.
    private func validateDepth() throws(ChatError) {
        var pending: [(filter: Filter, depth: Int)] = [(self, 1)]
        while let (filter, depth) = pending.popLast() {
            guard depth <= Self.maximumDepth else {
                throw .invalidArgument(
                    field: "filter", reason: "must not nest and/or/nor more than \(Self.maximumDepth) deep")
            }
            switch filter {
            case .and(let filters), .or(let filters), .nor(let filters):
                pending.append(contentsOf: filters.lazy.map { ($0, depth + 1) })
            case .condition:
                continue
            }
        }
    }

    /// The checks of `validate()` after the depth: recursion bounded by ``maximumDepth``.
    private func validateParts() throws {
        switch self {
        case .and(let filters):
            for filter in filters { try filter.validateParts() }
        case .or(let filters), .nor(let filters):
            guard !filters.isEmpty else {
                let name = if case .or = self { "$or" } else { "$nor" }
                throw ChatError.invalidArgument(field: name, reason: "needs at least one filter")
            }
            for filter in filters { try filter.validateParts() }
        case .condition(let field, let op):
            try field.validate(op)
        }
    }

    /// `self` if it is valid; throws as `validate()` otherwise. Use it to build a filter that
    /// is known to be valid: `let filter = try Filter.and([...]).validated()`.
    public func validated() throws -> Filter {
        try validate()
        return self
    }
}

extension ChannelFilterField {
    /// Throws unless `op` applies to this field with a well-typed operand.
    func validate(_ op: FilterOperator) throws {
        if case .metadata(let path) = self { try MetadataPath.validate(path, field: name) }
        try op.operandJSON.validate(field: name)
        func reject(_ reason: String) -> ChatError {
            .invalidArgument(field: name, reason: reason)
        }
        func check(_ operand: JSON, allowingNull: Bool) throws {
            if operand == .null {
                guard allowingNull else {
                    throw reject(
                        "\(op.wireName) cannot compare with null: \(name) is never missing")
                }
                return
            }
            guard let problem = operandProblem(operand) else { return }
            throw reject("\(op.wireName) needs \(problem), got \(operand)")
        }
        switch op {
        case .equal(let operand), .notEqual(let operand):
            try check(operand, allowingNull: isOptional)
        case .in(let operands), .notIn(let operands):
            for operand in operands { try check(operand, allowingNull: isOptional) }
        case .greater(let operand), .greaterOrEqual(let operand), .less(let operand),
            .lessOrEqual(let operand):
            switch kind {
            case .string, .number, .date: try check(operand, allowingNull: false)
            case .json:
                guard operand.numberValue != nil || operand.stringValue != nil else {
                    throw reject("\(op.wireName) needs a number or a string, got \(operand)")
                }
            case .bool, .channelType, .membership, .stringArray, .members:
                throw reject("\(op.wireName) does not apply to \(kind.description)")
            }
        case .exists:
            break
        case .contains(let operand):
            guard kind.isArray else {
                throw reject("$contains needs an array field; \(name) is \(kind.description)")
            }
            try check(operand, allowingNull: kind == .json)
        case .containsAll(let operands):
            guard kind.isArray else {
                throw reject("$all needs an array field; \(name) is \(kind.description)")
            }
            for operand in operands { try check(operand, allowingNull: kind == .json) }
        case .autocomplete(let text):
            guard [.string, .stringArray, .json].contains(kind) else {
                throw reject("$autocomplete needs a text field; \(name) is \(kind.description)")
            }
            guard !text.allSatisfy(\.isWhitespace) else {
                throw reject("$autocomplete needs a non-empty text")
            }
        }
    }

    /// What a non-null operand of this field must be, or `nil` when `operand` is fine.
    private func operandProblem(_ operand: JSON) -> String? {
        switch kind {
        case .string, .stringArray, .members:
            operand.stringValue == nil ? "a string" : nil
        case .number, .date:
            operand.numberValue == nil ? "a number" : nil
        case .bool:
            operand.boolValue == nil ? "true or false" : nil
        case .channelType:
            operand.stringValue.flatMap(ChannelType.init(rawValue:)) == nil
                ? "one of \(ChannelType.allCases.map(\.rawValue))" : nil
        case .membership:
            operand.stringValue.flatMap(Membership.init(rawValue:)) == nil
                ? "one of \(Membership.allCases.map(\.rawValue))" : nil
        case .json:
            nil
        }
    }
}

extension ChannelFilterField.Kind: CustomStringConvertible {
    /// Whether values of this kind are arrays (so `contains` and `$all` apply).
    var isArray: Bool { self == .stringArray || self == .members || self == .json }

    var description: String {
        switch self {
        case .string: "a text field"
        case .channelType: "a channel type"
        case .membership: "a membership"
        case .number: "a number field"
        case .date: "a date field (seconds since 1970)"
        case .bool: "a Boolean field"
        case .stringArray: "an array of strings"
        case .members: "the member set"
        case .json: "a metadata field"
        }
    }
}
