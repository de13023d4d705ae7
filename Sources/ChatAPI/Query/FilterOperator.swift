/// The test a `Filter` condition applies to one field's value. Operands are `JSON`
/// (see `FilterValue` for how typed values are represented).
///
/// Each operator's wire name is the MongoDB-style `$` name in `wireName`.
public enum FilterOperator: Sendable, Hashable {
    /// `$eq`: the value equals the operand; an array field matches when any element does.
    case equal(JSON)
    /// `$ne`: the negation of `equal` (so it matches a missing field).
    case notEqual(JSON)
    /// `$gt`: the value is greater than the operand (same type only: number or string).
    case greater(JSON)
    /// `$gte`: greater than or equal.
    case greaterOrEqual(JSON)
    /// `$lt`: less than.
    case less(JSON)
    /// `$lte`: less than or equal.
    case lessOrEqual(JSON)
    /// `$in`: `equal` holds for at least one operand.
    case `in`([JSON])
    /// `$nin`: the negation of `in` (so it matches a missing field).
    case notIn([JSON])
    /// `$exists`: the field is present (`true`) or missing (`false`). `null` counts as present.
    case exists(Bool)
    /// `$contains`: the field is an array that contains the operand.
    case contains(JSON)
    /// `$all`: the field is an array that contains every operand.
    case containsAll([JSON])
    /// `$autocomplete`: a case- and diacritic-insensitive prefix of a word of a string field
    /// (or of any string element of an array field).
    case autocomplete(String)

    /// The operator's name on the wire and in error messages.
    public var wireName: String {
        switch self {
        case .equal: "$eq"
        case .notEqual: "$ne"
        case .greater: "$gt"
        case .greaterOrEqual: "$gte"
        case .less: "$lt"
        case .lessOrEqual: "$lte"
        case .in: "$in"
        case .notIn: "$nin"
        case .exists: "$exists"
        case .contains: "$contains"
        case .containsAll: "$all"
        case .autocomplete: "$autocomplete"
        }
    }
}
