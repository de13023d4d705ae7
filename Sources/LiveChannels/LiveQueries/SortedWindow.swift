import ChatAPI
import LiveCore

/// The elements of a keyset-paginated live list: kept sorted by `SortKey`, bounded by the end of
/// the loaded window, and changed one element at a time, each change returned as the exact
/// ``CollectionChange`` it made (so a list is published without a diff).
///
/// The window is what has been loaded: every matching element whose key is at or before
/// `windowEndKey` (the last element of the last loaded page, as it was then), or every matching
/// element once the server said nothing follows. Bounding by key rather than by count is what
/// keeps keyset pagination free of gaps and duplicates while the list moves.
///
/// A pure value; the owner decides what matches and computes keys.
struct SortedWindow<Element: Identifiable & Equatable & Sendable>: Sendable where Element.ID: Sendable {
    /// The elements, in key order.
    private(set) var items: [Element] = []
    /// `items`' keys, for binary search.
    private var keys: [SortKey] = []
    /// The key of each listed element, to find it again after it changed.
    private var keyById: [Element.ID: SortKey] = [:]
    /// The key of the last element of the last loaded page; `nil` before the first page.
    private(set) var windowEndKey: SortKey?
    /// Whether the server has nothing after the window: it is then unbounded.
    private(set) var isComplete = false

    /// Whether an element with `key` falls inside the loaded window.
    func isInWindow(_ key: SortKey) -> Bool {
        if isComplete { return true }
        guard let windowEndKey else { return false }
        return key <= windowEndKey
    }

    // MARK: One element at a time

    /// Places a changed (or new) element whose key is now `key`: it enters, leaves, moves or is
    /// modified in place, depending on whether it `matches` and falls inside the window.
    /// - Returns: the change made, or `nil` when nothing changed.
    /// - Complexity: O(log n) to find and place it, plus O(n) to shift the arrays.
    mutating func apply(_ element: Element, key: SortKey, matches: Bool) -> CollectionChange? {
        let oldIndex = keyById[element.id].map(insertionIndex(for:))
        let belongs = matches && isInWindow(key)
        switch (oldIndex, belongs) {
        case (nil, false):
            return nil
        case (let old?, false):
            removeItem(at: old, id: element.id)
            return CollectionChange(deletions: [old])
        case (nil, true):
            return CollectionChange(insertions: [insertItem(element, key: key)])
        case (let old?, true):
            if items[old] == element { return nil }
            removeItem(at: old, id: element.id)
            let new = insertItem(element, key: key)
            return old == new
                ? CollectionChange(modifications: [old], modificationsInNew: [new])
                : CollectionChange(moves: [.init(from: old, to: new, isModified: true)])
        }
    }

    // MARK: Window

    /// Records a loaded page: the window now reaches `lastKey` (if later than before) and is
    /// unbounded when `hasNext` is false. The owner then calls ``rebuild(from:)``.
    mutating func extendWindow(to lastKey: SortKey?, hasNext: Bool) {
        if let lastKey, windowEndKey.map({ $0 < lastKey }) ?? true {
            windowEndKey = lastKey
        }
        isComplete = !hasNext
    }

    /// Forgets the window (for a resync): nothing is inside it until the next page arrives.
    /// Shows `keyed` (sorted ascending) as a provisional window ending at its last key, before
    /// the server's first page replaces it (see ``replaceWindow(with:hasNext:)``).
    mutating func showProvisionally(_ keyed: [(key: SortKey, element: Element)]) {
        windowEndKey = keyed.last?.key
        items = keyed.map(\.element)
        keys = keyed.map(\.key)
        keyById = Dictionary(keyed.map { ($0.element.id, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    /// Makes the window end at `lastKey` — even if that is before the current end, as when the
    /// first page from the server replaces a provisional window. `nil` (an empty first page)
    /// leaves nothing in the window until the server says it is complete.
    mutating func replaceWindow(with lastKey: SortKey?, hasNext: Bool) {
        windowEndKey = lastKey
        isComplete = !hasNext
    }

    mutating func resetWindow() {
        windowEndKey = nil
        isComplete = false
    }

    /// Replaces the elements with those of `candidates` (matching ones, with their keys) that
    /// fall inside the window.
    /// - Complexity: O(c log c) for c candidates.
    mutating func rebuild(from candidates: [(key: SortKey, element: Element)]) {
        let keyed = candidates.filter { isInWindow($0.key) }.sorted { $0.key < $1.key }
        items = keyed.map(\.element)
        keys = keyed.map(\.key)
        keyById = Dictionary(keyed.map { ($0.element.id, $0.key) }, uniquingKeysWith: { first, _ in first })
    }

    // MARK: Storage

    /// The first index whose key is not less than `key` (the index of the element with `key`,
    /// when listed).
    private func insertionIndex(for key: SortKey) -> Int {
        var low = 0
        var high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    private mutating func removeItem(at index: Int, id: Element.ID) {
        items.remove(at: index)
        keys.remove(at: index)
        keyById[id] = nil
    }

    private mutating func insertItem(_ element: Element, key: SortKey) -> Int {
        let index = insertionIndex(for: key)
        items.insert(element, at: index)
        keys.insert(key, at: index)
        keyById[element.id] = key
        return index
    }
}
