/// One component of a sort key: a field's value reduced to a totally ordered form.
///
/// Order: `missing` < numbers < text < objects < arrays < Booleans (MongoDB's type order, with
/// `null` and NaN treated as missing). Text compares by its folded form first, then by the original
/// string, so the order is total and case-insensitive for people.
package enum SortValue: Sendable, Hashable, Codable, Comparable {
    case missing
    case number(Double)
    case string(folded: String, original: String)
    case object(String)
    case array(String)
    case bool(Bool)

    /// Text, with its folded form computed once.
    static func text(_ string: String) -> SortValue {
        .string(folded: TextMatching.fold(string), original: string)
    }

    /// The sort value of a metadata value; `nil` (absent) and `null` are `missing`. Objects and
    /// arrays compare by their canonical (sorted-keys) JSON text.
    init(_ json: JSON?) {
        switch json {
        case nil, .null?: self = .missing
        case .bool(let value)?: self = .bool(value)
        case .number(let value)?: self = value.isNaN ? .missing : .number(value)
        case .string(let value)?: self = .text(value)
        case .object?: self = .object(json?.description ?? "")
        case .array?: self = .array(json?.description ?? "")
        }
    }

    private var rank: Int {
        switch self {
        case .missing: 0
        case .number: 1
        case .string: 2
        case .object: 3
        case .array: 4
        case .bool: 5
        }
    }

    package static func < (lhs: SortValue, rhs: SortValue) -> Bool {
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)): a < b
        case (.string(let foldedA, let a), .string(let foldedB, let b)):
            foldedA != foldedB ? foldedA < foldedB : a < b
        case (.object(let a), .object(let b)), (.array(let a), .array(let b)): a < b
        case (.bool(let a), .bool(let b)): !a && b
        default: lhs.rank < rhs.rank
        }
    }
}
