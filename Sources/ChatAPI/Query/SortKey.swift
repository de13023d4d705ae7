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

    init(values: [SortValue], ascending: [Bool], id: String) {
        precondition(values.count == ascending.count, "one direction per sort value")
        self.values = values
        self.ascending = ascending
        self.id = id
    }

    /// The three-way comparison of two keys of the same ordering.
    ///
    /// - Complexity: O(number of sort components).
    public func compare(_ other: SortKey) -> ComparisonResult {
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
