/// How one snapshot of a collection became the next, in UIKit's batch-update conventions.
///
/// - `deletions`: indices in the **old** snapshot of elements that are gone.
/// - `insertions`: indices in the **new** snapshot of elements that are new.
/// - `modifications` / `modificationsInNew`: elements that stayed in place (relative to the
///   other unmoved elements) but whose content changed, given in old indices and again in new
///   indices. The two arrays have the same length and correspond element by element.
/// - `moves`: elements that changed position, as `(from: old index, to: new index)`. A moved
///   element whose content also changed is a move with ``Move/isModified`` set, and is **not**
///   listed in `modifications`/`modificationsInNew`: UIKit cannot reload a row that moves in the
///   same batch, so reconfigure the row at `to` after the batch.
///
/// Every index appears at most once across {deletions, modifications, move sources} and at most
/// once across {insertions, modificationsInNew, move targets}. All arrays are sorted ascending
/// (`moves` by `to`), so two changes describing the same transition compare equal.
///
/// Applying a change to the old snapshot (see ``applying(to:new:)``) yields the new one.
/// Elements mentioned nowhere kept their content and their relative order.
public struct CollectionChange: Sendable, Hashable {
    /// An element that changed position.
    public struct Move: Sendable, Hashable {
        /// The element's index in the old snapshot.
        public var from: Int
        /// The element's index in the new snapshot.
        public var to: Int
        /// Whether the element's content changed as well as its position.
        public var isModified: Bool

        /// Creates a move of the element at old index `from` to new index `to`.
        public init(from: Int, to: Int, isModified: Bool = false) {
            self.from = from
            self.to = to
            self.isModified = isModified
        }
    }

    /// The five index lists, shared by copies: a change is passed around once per observer per
    /// commit, and one reference is cheaper to copy than five arrays.
    @usableFromInline
    final class Storage: Sendable {
        @usableFromInline let deletions: [Int]
        @usableFromInline let insertions: [Int]
        @usableFromInline let modifications: [Int]
        @usableFromInline let modificationsInNew: [Int]
        @usableFromInline let moves: [Move]

        init(
            _ deletions: [Int], _ insertions: [Int], _ modifications: [Int], _ modificationsInNew: [Int],
            _ moves: [Move]
        ) {
            self.deletions = deletions
            self.insertions = insertions
            self.modifications = modifications
            self.modificationsInNew = modificationsInNew
            self.moves = moves
        }

        /// The storage of every empty change (compare by identity to skip empty changes).
        @usableFromInline static let empty = Storage([], [], [], [], [])
    }

    @usableFromInline let storage: Storage

    /// Indices in the old snapshot of removed elements, ascending.
    @inlinable public var deletions: [Int] { storage.deletions }
    /// Indices in the new snapshot of added elements, ascending.
    @inlinable public var insertions: [Int] { storage.insertions }
    /// Indices in the old snapshot of elements modified in place, ascending.
    @inlinable public var modifications: [Int] { storage.modifications }
    /// The same elements as ``modifications``, at their indices in the new snapshot, ascending.
    @inlinable public var modificationsInNew: [Int] { storage.modificationsInNew }
    /// Elements that changed position, ascending by ``Move/to``.
    @inlinable public var moves: [Move] { storage.moves }

    /// Creates a change from its parts. The arrays may be given in any order; they are stored
    /// sorted. `modifications` and `modificationsInNew` must have the same length.
    ///
    /// Use ``isValid(oldCount:newCount:)`` to check a hand-made change against snapshot sizes.
    public init(
        deletions: [Int] = [],
        insertions: [Int] = [],
        modifications: [Int] = [],
        modificationsInNew: [Int] = [],
        moves: [Move] = []
    ) {
        precondition(
            modifications.count == modificationsInNew.count,
            "modifications and modificationsInNew must have the same length")
        self.init(
            sortedDeletions: deletions.sorted(), sortedInsertions: insertions.sorted(),
            sortedModifications: modifications.sorted(), sortedModificationsInNew: modificationsInNew.sorted(),
            movesSortedByTarget: moves.sorted { $0.to < $1.to })
    }

    /// Creates a change from parts already sorted as stored. Internal fast path for the diff.
    init(
        sortedDeletions: [Int], sortedInsertions: [Int], sortedModifications: [Int],
        sortedModificationsInNew: [Int], movesSortedByTarget: [Move]
    ) {
        if sortedDeletions.isEmpty && sortedInsertions.isEmpty && sortedModifications.isEmpty
            && movesSortedByTarget.isEmpty
        {
            storage = .empty
        } else {
            storage = Storage(
                sortedDeletions, sortedInsertions, sortedModifications, sortedModificationsInNew,
                movesSortedByTarget)
        }
    }

    /// The change that changes nothing.
    public static let empty = CollectionChange()

    /// Whether nothing was inserted, deleted, modified or moved.
    public var isEmpty: Bool {
        storage === Storage.empty
            || (deletions.isEmpty && insertions.isEmpty && modifications.isEmpty && moves.isEmpty)
    }

    /// The number of changed elements: deletions + insertions + modifications + moves.
    public var count: Int {
        deletions.count + insertions.count + modifications.count + moves.count
    }

    /// How many more elements the new snapshot has than the old one (negative when it shrank).
    public var countDelta: Int { insertions.count - deletions.count }

    public static func == (lhs: CollectionChange, rhs: CollectionChange) -> Bool {
        lhs.storage === rhs.storage
            || (lhs.deletions == rhs.deletions && lhs.insertions == rhs.insertions
                && lhs.modifications == rhs.modifications
                && lhs.modificationsInNew == rhs.modificationsInNew && lhs.moves == rhs.moves)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(deletions)
        hasher.combine(insertions)
        hasher.combine(modifications)
        hasher.combine(modificationsInNew)
        hasher.combine(moves)
    }
}

extension CollectionChange: CustomStringConvertible {
    public var description: String {
        if isEmpty { return "CollectionChange(empty)" }
        var parts: [String] = []
        if !deletions.isEmpty { parts.append("deletions: \(deletions)") }
        if !insertions.isEmpty { parts.append("insertions: \(insertions)") }
        if !modifications.isEmpty {
            parts.append("modifications: \(modifications) -> \(modificationsInNew)")
        }
        if !moves.isEmpty {
            let list = moves.map { "\($0.from)->\($0.to)\($0.isModified ? "*" : "")" }
            parts.append("moves: [\(list.joined(separator: ", "))]")
        }
        return "CollectionChange(\(parts.joined(separator: "; ")))"
    }
}
