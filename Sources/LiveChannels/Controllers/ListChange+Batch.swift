import Foundation
import LiveCore

extension ListChange {
    /// Applies one update's changes to `old` with the batch semantics documented on
    /// ``ListChange``: rows of removes and move sources go, then inserts and move targets come
    /// in at their new rows (ascending), then updates replace the element at their new row.
    ///
    /// - Precondition: the changes were delivered for an update of `old` (as a controller
    ///   delivers them).
    /// - Complexity: O((old.count + changes.count) · log changes.count).
    public static func applying(_ changes: [ListChange<Item>], to old: [Item]) -> [Item] {
        var removed = Set<Int>()
        var inserted: [(row: Int, item: Item)] = []
        var updated: [(row: Int, item: Item)] = []
        for change in changes {
            switch change {
            case .remove(_, let index): removed.insert(index.listRow)
            case .insert(let item, let index): inserted.append((index.listRow, item))
            case .move(let item, let from, let to):
                removed.insert(from.listRow)
                inserted.append((to.listRow, item))
            case .update(let item, let index): updated.append((index.listRow, item))
            }
        }
        var result = old.indices.filter { !removed.contains($0) }.map { old[$0] }
        for (row, item) in inserted.sorted(by: { $0.row < $1.row }) { result.insert(item, at: row) }
        for (row, item) in updated { result[row] = item }
        return result
    }
}

extension ListChange where Item: Identifiable & Equatable {
    /// The changes a controller delivers for a live collection's `change` from `old` to `new`
    /// (the collection's snapshots before and after), as its list shows them: only the
    /// elements `isIncluded` accepts, reversed when `newestFirst` (a list shown in the opposite
    /// order of the collection). An element entering or leaving the included ones becomes an
    /// insert or a remove. Ordered as ``ListChange`` documents.
    ///
    /// - Complexity: O(old.count + new.count + c · log c) for c changes.
    static func changes(
        from change: CollectionChange, old: [Item], new: [Item], isIncluded: (Item) -> Bool, newestFirst: Bool
    ) -> [ListChange<Item>] {
        let oldRows = rows(of: old, isIncluded: isIncluded, reversed: newestFirst)
        let newRows = rows(of: new, isIncluded: isIncluded, reversed: newestFirst)
        var removes: [(Int, ListChange)] = []
        var inserts: [(Int, ListChange)] = []
        var moves: [(Int, ListChange)] = []
        var updates: [(Int, ListChange)] = []
        func enter(_ index: Int) {
            if let row = newRows[index] { inserts.append((row, .insert(new[index], index: Self.row(row)))) }
        }
        func leave(_ index: Int) {
            if let row = oldRows[index] { removes.append((row, .remove(old[index], index: Self.row(row)))) }
        }
        for index in change.deletions { leave(index) }
        for index in change.insertions { enter(index) }
        for (from, to) in zip(change.modifications, change.modificationsInNew) {
            switch (oldRows[from], newRows[to]) {
            case (.some, .some(let row)): updates.append((row, .update(new[to], index: Self.row(row))))
            case (.some, nil): leave(from)
            case (nil, .some): enter(to)
            case (nil, nil): break
            }
        }
        for move in change.moves {
            switch (oldRows[move.from], newRows[move.to]) {
            case (.some(let from), .some(let to)):
                moves.append((to, .move(new[move.to], fromIndex: Self.row(from), toIndex: Self.row(to))))
                if move.isModified { updates.append((to, .update(new[move.to], index: Self.row(to)))) }
            case (.some, nil): leave(move.from)
            case (nil, .some): enter(move.to)
            case (nil, nil): break
            }
        }
        return removes.sorted { $0.0 > $1.0 }.map(\.1) + inserts.sorted { $0.0 < $1.0 }.map(\.1)
            + moves.sorted { $0.0 < $1.0 }.map(\.1) + updates.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Each element's row in the shown list, or `nil` when it is not shown.
    private static func rows(of items: [Item], isIncluded: (Item) -> Bool, reversed: Bool) -> [Int?] {
        var rows = [Int?](repeating: nil, count: items.count)
        var count = 0
        for index in items.indices where isIncluded(items[index]) {
            rows[index] = count
            count += 1
        }
        if reversed {
            for index in rows.indices { rows[index] = rows[index].map { count - 1 - $0 } }
        }
        return rows
    }

    /// The list as shown: the included elements, reversed when `newestFirst`.
    static func shown(_ items: [Item], isIncluded: (Item) -> Bool, newestFirst: Bool) -> [Item] {
        let included = items.filter(isIncluded)
        return newestFirst ? included.reversed() : included
    }
}
