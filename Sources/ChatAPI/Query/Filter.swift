/// A condition on channels: the one query language used by the server to answer channel
/// queries and by the client to keep live lists current.
///
/// Build filters from typed keys and operators, and combine them:
///
/// ```swift
/// let filter: Filter = .and([
///     .containMembers(userIds: ["alice"]),
///     .equal(.type, to: .community),
///     .equal("state", to: "LA"),                 // a string key is a metadata path
///     .or([.greater("custom_score.value", than: 10), .exists(.lastMessageAt, exists: false)]),
/// ])
/// ```
///
/// ## Semantics (MongoDB's)
/// - A *missing* field is an optional built-in that is `nil` (`displayName`, `lastMessageAt`,
///   `creator`) or a metadata path that does not resolve. `equal(null)` matches missing and
///   `null` fields; `notEqual` and `notIn` match missing fields; comparisons, `contains`,
///   `autocomplete` never do; `exists` tests presence (a `null` value is present).
/// - Comparisons only hold between values of the same type (number with number, string with
///   string); dates compare as numbers of seconds since 1970.
/// - On an array field (`tags`, `members`, an array in metadata) `equal`, `in` and comparisons
///   match when any element does (or, for `equal`, when the whole array equals the operand);
///   `notEqual`/`notIn` match when none does.
/// - `.and([])` (also `Filter.all`) matches every channel. `or` and `nor` need at least one
///   filter.
///
/// ## Validity
/// Building a filter never fails; an ill-typed filter (an operator a field does not support, an
/// operand of the wrong type, an unknown enum value, an empty path or `or`) is rejected by
/// `validate()` with `ChatError.invalidArgument` naming the key. The server and the client call
/// it before using a query (`ChannelListQuery.validate()`). Typed keys rule out most mistakes at
/// compile time; validation catches the rest and anything decoded from the wire.
public enum Filter: Sendable, Hashable {
    /// Every filter matches.
    case and([Filter])
    /// At least one filter matches.
    case or([Filter])
    /// No filter matches.
    case nor([Filter])
    /// `operator` holds for `field`.
    case condition(ChannelFilterField, FilterOperator)

    /// The filter that matches every channel, `.and([])`.
    public static var all: Filter { .and([]) }

    /// The field equals `value` (for `tags` and `members`: contains it).
    public static func equal<Value>(_ key: ChannelFilterKey<Value>, to value: Value) -> Filter {
        .condition(key.field, .equal(value.filterJSON))
    }

    /// The field does not equal `value`, or is missing.
    public static func notEqual<Value>(_ key: ChannelFilterKey<Value>, to value: Value) -> Filter {
        .condition(key.field, .notEqual(value.filterJSON))
    }

    /// The field is greater than `value`.
    public static func greater<Value: ComparableFilterValue>(
        _ key: ChannelFilterKey<Value>, than value: Value
    ) -> Filter {
        .condition(key.field, .greater(value.filterJSON))
    }

    /// The field is greater than or equal to `value`.
    public static func greaterOrEqual<Value: ComparableFilterValue>(
        _ key: ChannelFilterKey<Value>, than value: Value
    ) -> Filter {
        .condition(key.field, .greaterOrEqual(value.filterJSON))
    }

    /// The field is less than `value`.
    public static func less<Value: ComparableFilterValue>(
        _ key: ChannelFilterKey<Value>, than value: Value
    ) -> Filter {
        .condition(key.field, .less(value.filterJSON))
    }

    /// The field is less than or equal to `value`.
    public static func lessOrEqual<Value: ComparableFilterValue>(
        _ key: ChannelFilterKey<Value>, than value: Value
    ) -> Filter {
        .condition(key.field, .lessOrEqual(value.filterJSON))
    }

    /// The field equals one of `values`.
    public static func `in`<Value>(_ key: ChannelFilterKey<Value>, values: [Value]) -> Filter {
        .condition(key.field, .in(values.map(\.filterJSON)))
    }

    /// The field equals none of `values`, or is missing.
    public static func notIn<Value>(_ key: ChannelFilterKey<Value>, values: [Value]) -> Filter {
        .condition(key.field, .notIn(values.map(\.filterJSON)))
    }

    /// The field is present (`exists == true`) or missing.
    public static func exists<Value>(_ key: ChannelFilterKey<Value>, exists: Bool = true) -> Filter {
        .condition(key.field, .exists(exists))
    }

    /// The array field contains `value` (valid on `tags`, `members` and metadata).
    public static func contains<Value>(_ key: ChannelFilterKey<Value>, value: Value) -> Filter {
        .condition(key.field, .contains(value.filterJSON))
    }

    /// A word of the text field starts with `text`, ignoring case and diacritics.
    public static func autocomplete<Value: TextFilterValue>(
        _ key: ChannelFilterKey<Value>, text: String
    ) -> Filter {
        .condition(key.field, .autocomplete(text))
    }

    /// Every one of `userIds` is a member of the channel (`{"members": {"$all": [...]}}`).
    /// For "any of them", use `.in(.members, values: userIds)`.
    public static func containMembers(userIds: [String]) -> Filter {
        .condition(.members, .containsAll(userIds.map(JSON.string)))
    }
}
