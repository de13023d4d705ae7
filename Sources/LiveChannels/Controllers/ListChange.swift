import Foundation

/// A change of one row of a controller's list (Stream's `ListChange`), carrying the element.
/// Index paths are `[0, row]` (section 0): `IndexPath(indexes: [0, row])`.
///
/// ## Order and meaning: one `UITableView` batch update
/// A controller delivers the changes of one update as an array in this order:
/// 1. `.remove`s, by descending old row;
/// 2. `.insert`s, by ascending new row;
/// 3. `.move`s (old row → new row), by ascending new row;
/// 4. `.update`s, by ascending new row.
///
/// Removes, inserts and moves are one batch with UIKit's semantics: delete the rows of the
/// removes and of the moves' sources (old rows), then insert the rows of the inserts and of the
/// moves' targets (new rows) — `performBatchUpdates` with `deleteRows`, `insertRows` and
/// `moveRow`. Updates are *after* the batch, at new rows (`reconfigureRows`/`reloadRows` in a
/// second step): UIKit cannot reload a row that moves in the same batch. An element that moved
/// *and* changed is a `.move` followed by an `.update` at its new row; every `.move`'s item is
/// the element's current value. ``applying(_:to:)`` does exactly this to an array: applied to
/// the list before the update, it yields the list after it.
public enum ListChange<Item> {
    /// An element entered the list at `index` (new row).
    case insert(Item, index: IndexPath)
    /// An element moved from `fromIndex` (old row) to `toIndex` (new row).
    case move(Item, fromIndex: IndexPath, toIndex: IndexPath)
    /// An element changed in place; `index` is its new row.
    case update(Item, index: IndexPath)
    /// An element left the list from `index` (old row); the item is its last value.
    case remove(Item, index: IndexPath)

    /// The element the change is about.
    public var item: Item {
        switch self {
        case .insert(let item, _), .move(let item, _, _), .update(let item, _), .remove(let item, _): item
        }
    }

    /// The row the change leads to: the new row, except for `.remove` (its old row).
    public var indexPath: IndexPath {
        switch self {
        case .insert(_, let index), .update(_, let index), .remove(_, let index): index
        case .move(_, _, let index): index
        }
    }

    /// `IndexPath(indexes: [0, row])`.
    static func row(_ row: Int) -> IndexPath { IndexPath(indexes: [0, row]) }
}

extension ListChange: Sendable where Item: Sendable {}
extension ListChange: Equatable where Item: Equatable {}

extension IndexPath {
    /// The row of a `[section, row]` index path (Foundation spelling of UIKit's `row`).
    var listRow: Int { self[1] }
}
