extension RandomAccessCollection {
    /// The first index whose element satisfies `predicate`, or `endIndex` when none does: a
    /// binary search of a collection partitioned by `predicate` (every element that fails it
    /// comes first).
    ///
    /// - Complexity: O(log n) calls of `predicate`.
    @inlinable
    package func partitioningIndex(where predicate: (Element) throws -> Bool) rethrows -> Index {
        var low = startIndex
        var count = self.count
        while count > 0 {
            let half = count / 2
            let middle = index(low, offsetBy: half)
            if try predicate(self[middle]) {
                count = half
            } else {
                low = index(after: middle)
                count -= half + 1
            }
        }
        return low
    }
}
