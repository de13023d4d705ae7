import LiveCore
import TestSupport
import Testing

@Suite struct CollectionChangeDiffTests {
    // MARK: Hand-written cases

    @Test func emptyToNonEmptyInsertsEverything() {
        let change = CollectionChange(from: [Item](), to: [Item](ids: [1, 2, 3]))
        #expect(change == CollectionChange(insertions: [0, 1, 2]))
    }

    @Test func nonEmptyToEmptyDeletesEverything() {
        let change = CollectionChange(from: [Item](ids: [1, 2, 3]), to: [Item]())
        #expect(change == CollectionChange(deletions: [0, 1, 2]))
    }

    @Test func emptyToEmptyIsEmpty() {
        #expect(CollectionChange(from: [Item](), to: [Item]()).isEmpty)
    }

    @Test func identicalArraysGiveEmptyChange() {
        let items = [Item](ids: Array(0..<50))
        let change = CollectionChange(from: items, to: items)
        #expect(change.isEmpty)
        #expect(change.count == 0)
    }

    @Test func pureAppendIsInsertionsAtTheEnd() {
        let change = CollectionChange(from: [Item](ids: [1, 2]), to: [Item](ids: [1, 2, 3, 4]))
        #expect(change == CollectionChange(insertions: [2, 3]))
    }

    @Test func removalAtTheEndIsDeletions() {
        let change = CollectionChange(from: [Item](ids: [1, 2, 3, 4]), to: [Item](ids: [1, 2]))
        #expect(change == CollectionChange(deletions: [2, 3]))
    }

    @Test func singleElementChangedIsOneModification() {
        let old = [Item](ids: [1, 2, 3])
        var new = old
        new[1].value = 9
        let change = CollectionChange(from: old, to: new)
        #expect(change == CollectionChange(modifications: [1], modificationsInNew: [1]))
    }

    @Test func allModified() {
        let old = [Item](ids: [1, 2, 3])
        let new = old.map { Item(id: $0.id, value: 1) }
        let change = CollectionChange(from: old, to: new)
        #expect(change == CollectionChange(modifications: [0, 1, 2], modificationsInNew: [0, 1, 2]))
    }

    @Test func rotatingFirstToEndIsOneMove() {
        let change = CollectionChange(from: [Item](ids: [1, 2, 3, 4]), to: [Item](ids: [2, 3, 4, 1]))
        #expect(change == CollectionChange(moves: [.init(from: 0, to: 3)]))
    }

    @Test func rotatingLastToFrontIsOneMove() {
        let change = CollectionChange(from: [Item](ids: [1, 2, 3, 4]), to: [Item](ids: [4, 1, 2, 3]))
        #expect(change == CollectionChange(moves: [.init(from: 3, to: 0)]))
    }

    @Test func swapIsOneMove() {
        let old = [Item](ids: [1, 2, 3, 4])
        let new = [Item](ids: [1, 3, 2, 4])
        let change = CollectionChange(from: old, to: new)
        #expect(change.moves.count == 1)
        #expect(change.deletions.isEmpty && change.insertions.isEmpty && change.modifications.isEmpty)
        #expect(change.applying(to: old, new: new) == new)
    }

    @Test func reverseMovesAllButOne() {
        let old = [Item](ids: Array(0..<10))
        let new = Array(old.reversed())
        let change = CollectionChange(from: old, to: new)
        #expect(change.moves.count == 9)
        #expect(change.applying(to: old, new: new) == new)
        #expect(ChangeOracle.replay(change, old: old, new: new) == new)
    }

    @Test func movedAndModifiedIsAMarkedMoveNotAModification() {
        let old = [Item](ids: [1, 2, 3])
        let new = [Item(id: 2), Item(id: 3), Item(id: 1, value: 5)]
        let change = CollectionChange(from: old, to: new)
        #expect(change == CollectionChange(moves: [.init(from: 0, to: 2, isModified: true)]))
        #expect(change.modifications.isEmpty && change.modificationsInNew.isEmpty)
    }

    @Test func insertionDeletionAndModificationTogether() {
        let old = [Item(id: 1), Item(id: 2), Item(id: 3)]
        let new = [Item(id: 1, value: 1), Item(id: 4), Item(id: 3)]
        let change = CollectionChange(from: old, to: new)
        #expect(
            change
                == CollectionChange(
                    deletions: [1], insertions: [1], modifications: [0], modificationsInNew: [0]))
    }

    // MARK: Duplicate ids

    @Test func duplicateIdsArePairedInOrderAndSurplusIsDeleted() {
        // Between the common prefix [1] and the differing ends, the first 7 in new pairs with
        // the first 7 in old; the second old 7 is surplus.
        let old = [Item(id: 1), Item(id: 7, value: 1), Item(id: 5), Item(id: 7, value: 2), Item(id: 2)]
        let new = [Item(id: 1), Item(id: 5), Item(id: 7, value: 1), Item(id: 3)]
        let change = CollectionChange(from: old, to: new)
        #expect(change.isValid(oldCount: old.count, newCount: new.count))
        #expect(change.applying(to: old, new: new) == new)
        #expect(change.deletions == [3, 4])
        #expect(change.insertions == [3])
        #expect(change.moves.count == 1)
        #expect(change.modifications.isEmpty)
    }

    @Test func duplicateIdsAtTheEndsPairPositionally() {
        let old = [Item(id: 7, value: 1), Item(id: 5), Item(id: 7, value: 2)]
        let new = [Item(id: 5), Item(id: 7, value: 1)]
        let change = CollectionChange(from: old, to: new)
        #expect(change.applying(to: old, new: new) == new)
        #expect(change.deletions.count == 1 && change.insertions.isEmpty)
    }

    @Test func surplusNewDuplicatesAreInsertions() {
        let old = [Item(id: 1)]
        let new = [Item(id: 1), Item(id: 1), Item(id: 1)]
        let change = CollectionChange(from: old, to: new)
        #expect(change == CollectionChange(insertions: [1, 2]))
    }

    @Test func allSameIdsNeverCrash() {
        let old = [Item](ids: [0, 0, 0, 0])
        let new = [Item(id: 0, value: 1), Item(id: 0)]
        let change = CollectionChange(from: old, to: new)
        #expect(change.isValid(oldCount: 4, newCount: 2))
        #expect(change.applying(to: old, new: new) == new)
    }

    // MARK: Property test

    /// 10,000 seeded random pairs, sizes 0…200, with deletions, insertions, moves, modifications
    /// (some elements both moved and modified) and, in a quarter of the cases, duplicate ids.
    @Test func randomPairsApplyCleanlyWithMinimalMoves() {
        for seed in UInt64(1)...10_000 {
            var generator = SeededGenerator(seed: seed)
            let duplicates = seed % 4 == 0
            let old = ChangeScenario.items(
                count: Int.random(in: 0...200, using: &generator), duplicateIds: duplicates,
                using: &generator)
            var nextId = 1_000
            let rate = [0.0, 0.02, 0.1, 0.3, 0.7][Int(seed % 5)]
            let new = ChangeScenario.mutate(old, rate: rate, nextId: &nextId, using: &generator)
            let change = CollectionChange(from: old, to: new)

            #expect(change.isValid(oldCount: old.count, newCount: new.count), "seed \(seed): \(change)")
            guard change.isValid(oldCount: old.count, newCount: new.count) else { return }
            #expect(change.applying(to: old, new: new) == new, "seed \(seed)")
            #expect(ChangeOracle.replay(change, old: old, new: new) == new, "seed \(seed): \(change)")
            // Content changes are reported exactly.
            for (from, to) in zip(change.modifications, change.modificationsInNew) {
                #expect(old[from] != new[to], "seed \(seed): modification \(from)->\(to) is equal")
            }
            for move in change.moves {
                #expect(move.isModified == (old[move.from] != new[move.to]), "seed \(seed): \(move)")
            }
            if !duplicates {
                #expect(
                    change.moves.count == ChangeOracle.minimalMoves(old: old, new: new),
                    "seed \(seed): moves not minimal")
            }
        }
    }

    /// Large inputs take the hashing path end to end.
    @Test func largeShuffleMatchesOracle() {
        var generator = SeededGenerator(seed: 42)
        let old = ChangeScenario.items(count: 5_000, using: &generator)
        var nextId = 10_000
        let new = ChangeScenario.mutate(old, rate: 0.1, disjoint: true, nextId: &nextId, using: &generator)
        let change = CollectionChange(from: old, to: new)
        #expect(change.applying(to: old, new: new) == new)
        #expect(change.moves.count == ChangeScenario.minimalMoves(old: old, new: new))
    }
}
