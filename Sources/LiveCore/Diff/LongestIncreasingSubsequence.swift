/// Longest strictly increasing subsequence by patience sorting, O(k log k).
///
/// The diff uses it on the old indices of matched elements, listed in new order: the elements on
/// one longest increasing run keep their relative order and stay put; every other matched element
/// is a move. Keeping the longest run is what makes the number of moves minimal.
enum LongestIncreasingSubsequence {
    /// Marks one longest strictly increasing subsequence of `values`.
    ///
    /// Negative entries are holes (unmatched positions): they are skipped and never marked.
    /// - Returns: an array of `values.count` flags, `true` for members of the subsequence.
    /// - Complexity: O(k log k) time and O(k) space, k = `values.count`.
    static func membership(of values: [Int]) -> [Bool] {
        let count = values.count
        var isMember = [Bool](repeating: false, count: count)
        guard count > 0 else { return isMember }
        // tails[l] = position of the smallest tail of an increasing run of length l + 1.
        var tails: [Int] = []
        tails.reserveCapacity(64)
        var predecessor = [Int](repeating: -1, count: count)
        values.withUnsafeBufferPointer { values in
            for position in 0..<count {
                let value = values[position]
                if value < 0 { continue }
                if let last = tails.last, values[last] < value {
                    predecessor[position] = last
                    tails.append(position)
                    continue
                }
                // Binary search for the first tail >= value.
                var low = 0
                var high = tails.count
                while low < high {
                    let mid = (low &+ high) >> 1
                    if values[tails[mid]] < value { low = mid &+ 1 } else { high = mid }
                }
                if low > 0 { predecessor[position] = tails[low &- 1] }
                if low == tails.count { tails.append(position) } else { tails[low] = position }
            }
        }
        var position = tails.last ?? -1
        while position >= 0 {
            isMember[position] = true
            position = predecessor[position]
        }
        return isMember
    }
}
