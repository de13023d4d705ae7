import ChatAPI
import LiveCore

/// Which end of a live list its pages grow from.
enum WindowGrowth: Sendable {
    /// Pages load after the last element (channel lists, member lists, user searches): the
    /// window is every element whose key is at or before its bound.
    case forward
    /// Pages load before the first element (a message list, newest page first): the window is
    /// every element whose key is at or after its bound.
    case backward
}

/// The elements of a keyset-paginated live list: kept sorted by `SortKey`, bounded by the key
/// where the loaded pages end, and changed one element at a time, each change returned as the
/// exact ``CollectionChange`` it made (so a list is published without a diff).
///
/// Bounding by a key rather than by a count is what keeps keyset pagination free of gaps and
/// duplicates while the list moves: an element that sorts inside the loaded range is shown,
/// whether it came from a page or an event.
///
/// The elements, each with its key, are a ``PersistentArray``: placing an element costs
/// O(log n) whatever the window's size, and a copy of ``entries`` (a published snapshot) is O(1).
///
/// A pure value; the owner decides what belongs and computes keys. In debug builds every
/// mutating method ends with the checks of ``checkInvariants()`` (sampled: see
/// `checkAfterMutation()`).
struct SortedWindow<Element: Identifiable & Equatable & Sendable>: Sendable
where Element.ID: Sendable {
    /// A listed element and its key, as the tree's leaves hold it: the key's numeric lead
    /// inline (most comparisons while searching end there, without leaving the leaf) and one
    /// reference to the rest (copying a shared leaf, which every change to a published window
    /// does once or twice, then costs one reference count per element).
    struct Entry: Sendable {
        /// ``SortKey/lead`` of `key`.
        let lead: Double
        let item: Item

        init(key: SortKey, element: Element) {
            lead = key.lead
            item = Item(key: key, element: element)
        }

        var key: SortKey { item.key }
        var element: Element { item.element }

        /// Whether this entry's key is at or after `key` (whose lead is `lead`).
        @inline(__always)
        func isAtOrAfter(_ key: SortKey, lead: Double) -> Bool {
            if let order = SortKey.order(ofLead: self.lead, lead) { return order != .orderedAscending }
            return !(item.key < key)
        }
    }

    /// The key and element of an ``Entry``.
    final class Item: Sendable {
        let key: SortKey
        let element: Element

        init(key: SortKey, element: Element) {
            self.key = key
            self.element = element
        }
    }

    let growth: WindowGrowth
    /// The elements with their keys, in ascending key order.
    private(set) var entries = PersistentArray<Entry>()
    /// The key of each listed element, to find it again after it changed.
    private var keyById: [Element.ID: SortKey] = [:]
    /// The key of the element where the loaded pages end; `nil` before the first page.
    private(set) var bound: SortKey?
    /// Whether the server has nothing beyond the bound: the window is then unbounded.
    private(set) var isComplete = false
    #if DEBUG
        /// Which mutations end with a full ``checkInvariants()``.
        private var sampling = InvariantSampling()
    #endif

    init(growth: WindowGrowth) {
        self.growth = growth
    }

    /// Whether an element with `key` falls inside the loaded window.
    func contains(_ key: SortKey) -> Bool {
        if isComplete { return true }
        guard let bound else { return false }
        return growth == .forward ? key <= bound : bound <= key
    }

    /// Whether the element with `id` is listed.
    func lists(_ id: Element.ID) -> Bool { keyById[id] != nil }

    /// The listed element with `id`, if any. O(log n).
    func listed(_ id: Element.ID) -> Element? {
        keyById[id].map { entries[insertionIndex(for: $0)].element }
    }

    // MARK: One element at a time

    /// Places a changed (or new) element whose key is now `key`: it enters, leaves, moves or is
    /// modified in place, depending on whether it `belongs` (matches) and falls inside the window.
    /// - Returns: the change made, or `nil` when nothing changed.
    /// - Complexity: O(log n).
    mutating func apply(_ element: Element, key: SortKey, matches: Bool) -> CollectionChange? {
        defer { checkAfterMutation() }
        let oldKey = keyById[element.id]
        let oldIndex = oldKey.map(insertionIndex(for:))
        let belongs = matches && contains(key)
        switch (oldIndex, belongs) {
        case (nil, false):
            return nil
        case (let old?, false):
            removeItem(at: old, id: element.id)
            return CollectionChange(deletions: [old])
        case (nil, true):
            return CollectionChange(insertions: [insertItem(element, key: key)])
        case (let old?, true):
            if oldKey == key {
                if entries[old].element == element { return nil }
                entries[old] = Entry(key: key, element: element)
                return CollectionChange(modifications: [old], modificationsInNew: [old])
            }
            removeItem(at: old, id: element.id)
            let new = insertItem(element, key: key)
            return old == new
                ? CollectionChange(modifications: [old], modificationsInNew: [new])
                : CollectionChange(moves: [.init(from: old, to: new, isModified: true)])
        }
    }

    // MARK: Window

    /// Moves the bound (and completeness) without touching the items; the owner then replaces
    /// the items with ``replaceItems(with:)`` or places them one by one.
    mutating func setBound(_ bound: SortKey?, isComplete: Bool) {
        defer { checkAfterMutation() }
        self.bound = bound
        self.isComplete = isComplete
    }

    /// Replaces the elements with `keyed`, which must be sorted ascending by key.
    /// - Complexity: O(k) for k elements.
    mutating func replaceItems(with keyed: [(key: SortKey, element: Element)]) {
        defer { checkAfterMutation() }
        entries = PersistentArray(keyed.lazy.map { Entry(key: $0.key, element: $0.element) })
        keyById = Dictionary(
            keyed.map { ($0.element.id, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Invariants

    /// Traps unless the window is consistent: ``entries`` is a sound tree whose keys ascend
    /// strictly (no element listed twice), and `keyById` holds exactly the listed elements, each
    /// with the key it is listed under. Whether elements fall inside the bound is the owner's
    /// invariant (``setBound(_:isComplete:)`` moves the bound before the owner places the
    /// elements).
    ///
    /// Debug builds only: a no-op in release.
    /// - Complexity: O(n).
    func checkInvariants() {
        #if DEBUG
            precondition(
                keyById.count == entries.count, "\(keyById.count) keys by id for \(entries.count) listed elements")
            entries.checkInvariants { $0.item === $1.item }
            var previous: SortKey?
            entries.forEach { entry in
                if let previous {
                    precondition(previous < entry.key, "keys out of order: \(previous) before \(entry.key)")
                }
                precondition(
                    keyById[entry.element.id] == entry.key, "element \(entry.element.id) listed under another key")
                previous = entry.key
            }
        #endif
    }

    /// Ends every mutating method in debug builds: the counts are checked after every mutation,
    /// the whole of ``checkInvariants()`` after the mutations `sampling` picks (see
    /// ``InvariantSampling``: every mutation while the window is small, one in
    /// n / ``InvariantSampling/smallCount`` above), amortized O(1) per mutation. A no-op in
    /// release.
    private mutating func checkAfterMutation() {
        #if DEBUG
            if sampling.isDue(count: entries.count) {
                checkInvariants()
            } else {
                precondition(
                    keyById.count == entries.count, "\(keyById.count) keys by id for \(entries.count) listed elements")
            }
        #endif
    }

    // MARK: Storage

    /// The first index whose key is not less than `key` (the index of the element with `key`,
    /// when listed). O(log n).
    private func insertionIndex(for key: SortKey) -> Int {
        let lead = key.lead
        if let last = entries.last, !last.isAtOrAfter(key, lead: lead) { return entries.count }
        return entries.partitioningIndex { $0.isAtOrAfter(key, lead: lead) }
    }

    private mutating func removeItem(at index: Int, id: Element.ID) {
        entries.remove(at: index)
        keyById[id] = nil
    }

    private mutating func insertItem(_ element: Element, key: SortKey) -> Int {
        let index = insertionIndex(for: key)
        entries.insert(Entry(key: key, element: element), at: index)
        keyById[element.id] = key
        return index
    }
}
