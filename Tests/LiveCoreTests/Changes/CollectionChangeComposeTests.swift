import LiveCore
import TestSupport
import Testing

@Suite struct CollectionChangeComposeTests {
    @Test func moveThereAndBackComposesToNoMove() {
        let a = [Item](ids: [1, 2, 3])
        let b = [Item](ids: [2, 3, 1])
        let first = CollectionChange(from: a, to: b)
        let second = CollectionChange(from: b, to: a)
        #expect(first.followed(by: second).moves.isEmpty)
    }

    @Test func insertThenDeleteCancels() {
        let a = [Item](ids: [1, 2])
        let b = [Item](ids: [1, 9, 2])
        let composed = CollectionChange(from: a, to: b).followed(by: CollectionChange(from: b, to: a))
        #expect(composed.isEmpty)
    }

    @Test func composingWithEmptyIsIdentity() {
        let change = CollectionChange(deletions: [2], insertions: [0])
        #expect(change.followed(by: .empty) == change)
        #expect(CollectionChange.empty.followed(by: change) == change)
    }

    @Test func modificationSurvivesALaterMove() {
        let a = [Item](ids: [1, 2, 3])
        var b = a
        b[0].value = 1
        let c = [b[1], b[2], b[0]]
        let composed = CollectionChange(from: a, to: b).followed(by: CollectionChange(from: b, to: c))
        #expect(composed == CollectionChange(moves: [.init(from: 0, to: 2, isModified: true)]))
    }

    /// Chains of random changes: the composition applied to the first snapshot yields the last,
    /// and for unique ids it has exactly as many moves as the direct diff (the minimum).
    @Test func randomChainsComposeToTheDirectChange() {
        for seed in UInt64(1)...3_000 {
            var generator = SeededGenerator(seed: seed)
            let duplicates = seed % 5 == 0
            var snapshots = [
                ChangeScenario.items(
                    count: Int.random(in: 0...120, using: &generator), duplicateIds: duplicates,
                    using: &generator)
            ]
            var nextId = 1_000
            let steps = Int.random(in: 2...5, using: &generator)
            for _ in 0..<steps {
                let rate = Double.random(in: 0...0.4, using: &generator)
                snapshots.append(
                    ChangeScenario.mutate(snapshots.last!, rate: rate, nextId: &nextId, using: &generator))
            }
            var composed = CollectionChange.empty
            for index in 1..<snapshots.count {
                composed = composed.followed(
                    by: CollectionChange(from: snapshots[index - 1], to: snapshots[index]))
            }
            let first = snapshots[0]
            let last = snapshots[snapshots.count - 1]
            #expect(composed.isValid(oldCount: first.count, newCount: last.count), "seed \(seed): \(composed)")
            guard composed.isValid(oldCount: first.count, newCount: last.count) else { return }
            #expect(composed.applying(to: first, new: last) == last, "seed \(seed)")
            #expect(ChangeOracle.replay(composed, old: first, new: last) == last, "seed \(seed)")
            if !duplicates {
                #expect(
                    composed.moves.count == CollectionChange(from: first, to: last).moves.count,
                    "seed \(seed): composed moves not minimal")
            }
        }
    }

    /// A few changes deep in a long list (what a live list's observer that falls behind gets):
    /// the composition is valid, yields the last snapshot and has the minimal number of moves.
    @Test func sparseChangesInALongListCompose() {
        for seed in UInt64(1)...200 {
            var generator = SeededGenerator(seed: seed)
            var snapshots = [
                ChangeScenario.items(
                    count: Int.random(in: 1_000...5_000, using: &generator), duplicateIds: false, using: &generator)
            ]
            var nextId = 100_000
            for _ in 0..<Int.random(in: 2...6, using: &generator) {
                let rate = Double.random(in: 0...0.003, using: &generator)
                snapshots.append(ChangeScenario.mutate(snapshots.last!, rate: rate, nextId: &nextId, using: &generator))
            }
            var composed = CollectionChange.empty
            for index in 1..<snapshots.count {
                composed = composed.followed(by: CollectionChange(from: snapshots[index - 1], to: snapshots[index]))
            }
            let (first, last) = (snapshots[0], snapshots[snapshots.count - 1])
            guard composed.isValid(oldCount: first.count, newCount: last.count) else {
                Issue.record("seed \(seed): invalid \(composed)")
                return
            }
            #expect(composed.applying(to: first, new: last) == last, "seed \(seed)")
            #expect(composed.moves.count == CollectionChange(from: first, to: last).moves.count, "seed \(seed)")
        }
    }

    /// Hand-made changes that move one element far in a list of unknown length compose without
    /// the list: the result mentions only the indices involved.
    @Test func compositionMentionsOnlyWhatMoved() {
        let first = CollectionChange(moves: [.init(from: 90_000, to: 10)])
        let second = CollectionChange(deletions: [50_000], insertions: [3])
        let composed = first.followed(by: second)
        #expect(composed.deletions == [49_999])
        #expect(composed.insertions == [3])
        #expect(composed.moves == [.init(from: 90_000, to: 11)])
    }
}
