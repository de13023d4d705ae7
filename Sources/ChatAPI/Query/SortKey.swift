import Foundation

/// The position of one element in an ordering: its sort values, the direction of each, and its
/// id as the final ascending tie-break. Keys of the same ordering are totally ordered; comparing
/// keys of different orderings is meaningless.
public struct SortKey: Sendable, Hashable, Codable, Comparable {
    /// The sort values, one per criterion of the ordering.
    package let values: [SortValue]
    let ascending: [Bool]
    /// The element's id, the final ascending tie-break.
    package let id: String
    /// The first component as one number in the key's direction, when it is a number or
    /// missing (dates, counts, sequences): comparing two keys whose leads differ needs nothing
    /// else. NaN when the first component is not numeric. Derived, so neither stored in a
    /// cursor nor part of equality.
    package let lead: Double

    init(values: [SortValue], ascending: [Bool], id: String) {
        precondition(values.count == ascending.count, "one direction per sort value")
        self.values = values
        self.ascending = ascending
        self.id = id
        lead = Self.lead(of: values, ascending: ascending)
    }

    /// Missing sorts before every number; a tie of leads (say `-infinity` against missing)
    /// falls back to the full comparison, so only a strict difference is ever trusted.
    private static func lead(of values: [SortValue], ascending: [Bool]) -> Double {
        guard let first = values.first else { return .nan }
        let value: Double
        switch first {
        case .missing: value = -.infinity
        case .number(let number) where !number.isNaN: value = number
        default: return .nan
        }
        return ascending[0] ? value : -value
    }

    private enum CodingKeys: String, CodingKey {
        case values, ascending, id
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let values = try container.decode([SortValue].self, forKey: .values)
        let ascending = try container.decode([Bool].self, forKey: .ascending)
        guard values.count == ascending.count else {
            throw DecodingError.dataCorruptedError(
                forKey: .ascending, in: container, debugDescription: "one direction per sort value")
        }
        self.init(
            values: values, ascending: ascending, id: try container.decode(String.self, forKey: .id))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(values, forKey: .values)
        try container.encode(ascending, forKey: .ascending)
        try container.encode(id, forKey: .id)
    }

    public static func == (lhs: SortKey, rhs: SortKey) -> Bool {
        lhs.values == rhs.values && lhs.ascending == rhs.ascending && lhs.id == rhs.id
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
        hasher.combine(ascending)
        hasher.combine(id)
    }

    /// The order of two keys known only by their leads, or `nil` when the leads cannot tell
    /// (equal, or not numeric) and the keys must be compared in full.
    @inline(__always)
    package static func order(ofLead lhs: Double, _ rhs: Double) -> ComparisonResult? {
        if lhs < rhs { return .orderedAscending }
        if rhs < lhs { return .orderedDescending }
        return nil
    }

    /// The three-way comparison of two keys of the same ordering.
    ///
    /// - Complexity: O(number of sort components); O(1) when the first components are numbers
    ///   (or missing) that differ.
    public func compare(_ other: SortKey) -> ComparisonResult {
        if let order = Self.order(ofLead: lead, other.lead) { return order }
        for index in values.indices where index < other.values.count {
            let (a, b) = (values[index], other.values[index])
            if a == b { continue }
            return (a < b) == ascending[index] ? .orderedAscending : .orderedDescending
        }
        if id == other.id { return .orderedSame }
        return id < other.id ? .orderedAscending : .orderedDescending
    }

    /// Whether `lhs` sorts before `rhs`: a missing value sorts before every present value.
    public static func < (lhs: SortKey, rhs: SortKey) -> Bool {
        lhs.compare(rhs) == .orderedAscending
    }
}
