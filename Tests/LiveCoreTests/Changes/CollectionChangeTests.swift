import LiveCore
import TestSupport
import Testing

@Suite struct CollectionChangeTests {
    @Test func initSortsItsParts() {
        let change = CollectionChange(
            deletions: [3, 1], insertions: [2, 0], modifications: [4, 2], modificationsInNew: [5, 3],
            moves: [.init(from: 0, to: 4), .init(from: 5, to: 1)])
        #expect(change.deletions == [1, 3])
        #expect(change.insertions == [0, 2])
        #expect(change.modifications == [2, 4])
        #expect(change.modificationsInNew == [3, 5])
        #expect(change.moves.map(\.to) == [1, 4])
    }

    @Test func countsAndEmptiness() {
        let change = CollectionChange(
            deletions: [0], insertions: [0, 1], modifications: [1], modificationsInNew: [2],
            moves: [.init(from: 2, to: 3)])
        #expect(!change.isEmpty)
        #expect(change.count == 5)
        #expect(change.countDelta == 1)
        #expect(CollectionChange.empty.isEmpty)
        #expect(CollectionChange().count == 0)
    }

    @Test func validityRejectsOutOfRangeAndReusedIndices() {
        #expect(CollectionChange(deletions: [0]).isValid(oldCount: 1, newCount: 0))
        #expect(!CollectionChange(deletions: [1]).isValid(oldCount: 1, newCount: 0))
        #expect(!CollectionChange(insertions: [0]).isValid(oldCount: 1, newCount: 1))
        // Old index 0 both deleted and moved.
        #expect(
            !CollectionChange(deletions: [0], insertions: [0], moves: [.init(from: 0, to: 1)])
                .isValid(oldCount: 2, newCount: 2))
        // New index 1 both inserted and a move target.
        #expect(
            !CollectionChange(deletions: [1], insertions: [1], moves: [.init(from: 0, to: 1)])
                .isValid(oldCount: 2, newCount: 2))
        // A modification whose old and new index do not designate the same element.
        #expect(
            !CollectionChange(deletions: [0], insertions: [1], modifications: [1], modificationsInNew: [1])
                .isValid(oldCount: 2, newCount: 2))
        #expect(
            CollectionChange(deletions: [0], insertions: [1], modifications: [1], modificationsInNew: [0])
                .isValid(oldCount: 2, newCount: 2))
    }

    @Test func applyingFollowsUIKitOrder() {
        let old = [Item](ids: [1, 2, 3, 4])
        let new = [Item(id: 4, value: 1), Item(id: 2), Item(id: 5), Item(id: 3, value: 1)]
        let change = CollectionChange(
            deletions: [0], insertions: [2], modifications: [2], modificationsInNew: [3],
            moves: [.init(from: 3, to: 0, isModified: true)])
        #expect(change.applying(to: old, new: new) == new)
    }

    @Test func descriptionIsReadable() {
        let change = CollectionChange(deletions: [1], moves: [.init(from: 0, to: 2, isModified: true)])
        #expect(change.description == "CollectionChange(deletions: [1]; moves: [0->2*])")
        #expect(CollectionChange.empty.description == "CollectionChange(empty)")
    }
}
