import Foundation
import LiveCore
import TestSupport
import Testing

@testable import LiveChannels

/// `ListChange`s derived from a `CollectionChange`, applied in the documented order (one batch,
/// then updates) to the list shown before, give the list shown after — filtered or not, in the
/// collection's order or reversed (newest first).
@Suite struct ListChangePropertyTests {
    @Test func applyingTheDerivedChangesToTheOldListGivesTheNewOne() {
        for seed in UInt64(1)...2_000 {
            var generator = SeededGenerator(seed: seed)
            let old = Self.randomList(&generator)
            let new = Self.mutate(old, &generator)
            let change = CollectionChange(from: old, to: new)
            let modulus = Int.random(in: 1...3, using: &generator)
            let isIncluded: (Item) -> Bool = { modulus == 1 || ($0.id + $0.value) % modulus != 0 }
            let newestFirst = Bool.random(using: &generator)
            let changes = ListChange.changes(
                from: change, old: old, new: new, isIncluded: isIncluded, newestFirst: newestFirst)
            let shownOld = ListChange.shown(old, isIncluded: isIncluded, newestFirst: newestFirst)
            let shownNew = ListChange.shown(new, isIncluded: isIncluded, newestFirst: newestFirst)
            #expect(ListChange.applying(changes, to: shownOld) == shownNew, "seed \(seed): \(changes)")
            #expect(Self.isInDocumentedOrder(changes), "seed \(seed): \(changes)")
            for case .remove(let item, let index) in changes { #expect(shownOld[index[1]] == item, "seed \(seed)") }
            for case .insert(let item, let index) in changes { #expect(shownNew[index[1]] == item, "seed \(seed)") }
            for case .move(let item, let from, let to) in changes {
                #expect(shownOld[from[1]].id == item.id && shownNew[to[1]] == item, "seed \(seed)")
            }
        }
    }

    @Test func indexPathsAreSectionZeroRows() {
        let changes = ListChange.changes(
            from: CollectionChange(from: [Item](ids: [1, 2]), to: [Item](ids: [2, 3])), old: [Item](ids: [1, 2]),
            new: [Item](ids: [2, 3]), isIncluded: { _ in true }, newestFirst: false)
        #expect(
            changes == [
                .remove(Item(id: 1), index: IndexPath(indexes: [0, 0])),
                .insert(Item(id: 3), index: IndexPath(indexes: [0, 1])),
            ])
        #expect(changes.map(\.indexPath) == [IndexPath(indexes: [0, 0]), IndexPath(indexes: [0, 1])])
        #expect(changes.map(\.item.id) == [1, 3])
    }

    /// Removes by descending old row, inserts by ascending new row, moves, then updates.
    static func isInDocumentedOrder(_ changes: [ListChange<Item>]) -> Bool {
        func rank(_ change: ListChange<Item>) -> Int {
            switch change {
            case .remove: 0
            case .insert: 1
            case .move: 2
            case .update: 3
            }
        }
        let ranks = changes.map(rank)
        guard ranks == ranks.sorted() else { return false }
        let removes = changes.filter { rank($0) == 0 }.map { $0.indexPath[1] }
        let inserts = changes.filter { rank($0) == 1 }.map { $0.indexPath[1] }
        return removes == removes.sorted(by: >) && inserts == inserts.sorted()
    }

    static func randomList(_ generator: inout SeededGenerator) -> [Item] {
        let count = Int.random(in: 0...12, using: &generator)
        return Array(0..<30).shuffled(using: &generator).prefix(count).map {
            Item(id: $0, value: Int.random(in: 0...2, using: &generator))
        }
    }

    /// Deletes, inserts, changes and reorders some elements.
    static func mutate(_ old: [Item], _ generator: inout SeededGenerator) -> [Item] {
        var items = old.filter { _ in Int.random(in: 0..<4, using: &generator) != 0 }
        for index in items.indices where Bool.random(using: &generator) {
            items[index].value = Int.random(in: 0...2, using: &generator)
        }
        let used = Set(old.map(\.id))
        for id in (30..<40).filter({ !used.contains($0) }) where Int.random(in: 0..<3, using: &generator) == 0 {
            items.insert(Item(id: id, value: 0), at: Int.random(in: 0...items.count, using: &generator))
        }
        if items.count > 1, Bool.random(using: &generator) {
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let from = Int.random(in: 0..<items.count, using: &generator)
                let item = items.remove(at: from)
                items.insert(item, at: Int.random(in: 0...items.count, using: &generator))
            }
        }
        return items
    }
}
