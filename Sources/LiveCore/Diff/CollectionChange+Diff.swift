extension CollectionChange {
    /// Computes the change from `old` to `new`: identity is an element's `id`, a content change
    /// is `!=`.
    ///
    /// The number of moves is minimal when ids are unique: elements are matched by id with a
    /// hash table, one longest increasing run of their old indices stays put, and everything
    /// else that was matched moves. Matched elements whose content differs are modifications,
    /// or moves with `isModified` when they also moved.
    ///
    /// A common prefix and suffix (same ids in the same places) are matched first without
    /// hashing, so identical arrays, appends, removals at the end and single-element edits cost
    /// one linear scan.
    ///
    /// **Duplicate ids** never crash and always give a valid change: occurrences of one id are
    /// paired in order of appearance (the first old occurrence with the first new one not
    /// already paired by the prefix or suffix scan, and so on); surplus occurrences are
    /// deletions or insertions.
    ///
    /// - Complexity: O(n + m) for the fast paths; O((n + m) log (n + m)) in general, where n and
    ///   m are the sizes of the parts that differ.
    @inlinable
    public init<Element: Identifiable & Equatable>(from old: [Element], to new: [Element]) {
        self = ElementDiff.diff(old, new)
    }
}

/// The diff algorithm behind ``CollectionChange/init(from:to:)``. Inlinable so that it is
/// specialized for the caller's element type (hashing an unspecialized generic id is several
/// times slower).
@usableFromInline
enum ElementDiff {
    @inlinable
    static func diff<Element: Identifiable & Equatable>(
        _ old: [Element], _ new: [Element]
    ) -> CollectionChange {
        let oldCount = old.count
        let newCount = new.count
        var builder = ChangeBuilder()

        // Common prefix: same id in the same place.
        var prefix = 0
        let shorter = min(oldCount, newCount)
        while prefix < shorter, old[prefix].id == new[prefix].id {
            builder.keep(old: prefix, new: prefix, isModified: old[prefix] != new[prefix])
            prefix += 1
        }
        // Common suffix, not overlapping the prefix.
        var suffix = 0
        while suffix < shorter - prefix,
            old[oldCount - 1 - suffix].id == new[newCount - 1 - suffix].id
        {
            suffix += 1
        }

        let oldRange = prefix..<(oldCount - suffix)
        let newRange = prefix..<(newCount - suffix)
        if !oldRange.isEmpty || !newRange.isEmpty {
            let (newToOld, isModified) = match(old, oldRange, new, newRange)
            builder.addWindow(
                newToOld: newToOld, isModified: isModified,
                newStart: newRange.lowerBound, oldRange: oldRange)
        }

        for offset in stride(from: suffix, to: 0, by: -1) {
            let oldIndex = oldCount - offset
            let newIndex = newCount - offset
            builder.keep(old: oldIndex, new: newIndex, isModified: old[oldIndex] != new[newIndex])
        }
        return builder.build()
    }

    /// Matches the elements of `new[newRange]` to those of `old[oldRange]` by id.
    ///
    /// - Returns: for each new position of the window, the matched old index or -1, and whether
    ///   the matched element's content changed.
    @inlinable
    static func match<Element: Identifiable & Equatable>(
        _ old: [Element], _ oldRange: Range<Int>, _ new: [Element], _ newRange: Range<Int>
    ) -> (newToOld: [Int], isModified: [Bool]) {
        var newToOld = [Int](repeating: -1, count: newRange.count)
        var isModified = [Bool](repeating: false, count: newRange.count)
        if oldRange.isEmpty || newRange.isEmpty { return (newToOld, isModified) }

        // First old occurrence of each id; later occurrences are chained through `nextSame`.
        var firstIndex = [Element.ID: Int](minimumCapacity: oldRange.count)
        var nextSame = [Int](repeating: -1, count: oldRange.count)
        var hasDuplicates = false
        for index in oldRange.reversed() {
            if let later = firstIndex.updateValue(index, forKey: old[index].id) {
                nextSame[index - oldRange.lowerBound] = later
                hasDuplicates = true
            }
        }

        if !hasDuplicates {
            // Unique old ids: at most one new element may claim each of them.
            var claimed = [Bool](repeating: false, count: oldRange.count)
            for newIndex in newRange {
                let element = new[newIndex]
                guard let oldIndex = firstIndex[element.id] else { continue }
                let slot = oldIndex - oldRange.lowerBound
                if claimed[slot] { continue }
                claimed[slot] = true
                newToOld[newIndex - newRange.lowerBound] = oldIndex
                isModified[newIndex - newRange.lowerBound] = old[oldIndex] != element
            }
            return (newToOld, isModified)
        }

        // Duplicates: `cursor[first]` is the next unpaired occurrence of that id, or -1.
        var cursor = Array(oldRange)
        for newIndex in newRange {
            let element = new[newIndex]
            guard let first = firstIndex[element.id] else { continue }
            let firstSlot = first - oldRange.lowerBound
            let oldIndex = cursor[firstSlot]
            if oldIndex < 0 { continue }
            cursor[firstSlot] = nextSame[oldIndex - oldRange.lowerBound]
            newToOld[newIndex - newRange.lowerBound] = oldIndex
            isModified[newIndex - newRange.lowerBound] = old[oldIndex] != element
        }
        return (newToOld, isModified)
    }
}
