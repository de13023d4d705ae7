import ChatAPI
import Foundation
import Testing
import TestSupport

/// `Channel` keeps its fields behind one shared reference and changes them in place when it
/// is the only value holding them: value semantics must hold whatever the sharing.
@Suite struct ChannelValueTests {
    static func channel(_ id: String) -> Channel {
        Channel(channelId: id, type: .community, tags: ["a"], displayName: "first", memberCount: 1)
    }

    @Test func changingACopyOrTheOriginalNeverChangesTheOther() {
        var original = Self.channel("c")
        var copy = original
        copy.displayName = "second"
        copy.memberCount = 2
        copy.tags = ["b"]
        #expect(original.displayName == "first" && original.memberCount == 1 && original.tags == ["a"])
        #expect(copy.displayName == "second" && copy.memberCount == 2 && copy.tags == ["b"])
        let snapshot = original
        original.memberCount = 7
        original.lastSequence = 3
        #expect(snapshot.memberCount == 1 && snapshot.lastSequence == 0)
        #expect(original.memberCount == 7 && original.lastSequence == 3)
        #expect(snapshot == Self.channel("c"))
    }

    /// Seeded runs of changes to values that share fields in every way (copies made before,
    /// between and after changes) end equal to the same changes applied to values that never
    /// shared anything.
    @Test func sharedAndUnsharedValuesAgreeAfterRandomChanges() {
        let seed = SeededGenerator.testSeed(0xC0_0C0)
        var random = SeededGenerator(seed: seed)
        var shared = (0..<8).map { _ in Self.channel("c") }  // copies of one value: one box
        for index in shared.indices { shared[index] = shared[0] }
        var separate = (0..<8).map { _ in Self.channel("c") }  // each its own box
        for step in 0..<4_000 {
            let index = Int.random(in: 0..<8, using: &random)
            let value = Int.random(in: 0..<1_000, using: &random)
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                shared[index].memberCount = value
                separate[index].memberCount = value
            case 1:
                shared[index].displayName = "n\(value)"
                separate[index].displayName = "n\(value)"
            case 2:
                shared[index].tags.append("t\(value)")
                separate[index].tags.append("t\(value)")
            case 3:
                // Another value takes a copy of this one (the two share fields from here).
                let other = Int.random(in: 0..<8, using: &random)
                shared[other] = shared[index]
                separate[other] = separate[index]
            default:
                shared[index].lastSequence += 1
                separate[index].lastSequence += 1
            }
            if step % 100 == 0 {
                #expect(shared == separate, "seed \(seed), step \(step)")
            }
        }
        #expect(shared == separate, "seed \(seed)")
        #expect(shared.map(\.memberCount) == separate.map(\.memberCount), "seed \(seed)")
    }

    /// Many tasks change their own copies of one shared value at once; the shared value never
    /// changes (Thread Sanitizer: no race on the shared fields).
    @Test func concurrentChangesToCopiesLeaveTheSharedValueAlone() async {
        let base = Self.channel("c")
        let results = await withTaskGroup(of: Channel.self) { group in
            for number in 0..<64 {
                group.addTask {
                    var mine = base
                    for step in 0..<200 {
                        mine.memberCount = number * 1_000 + step
                        mine.displayName = "task \(number)"
                    }
                    return mine
                }
            }
            return await group.reduce(into: [Channel]()) { $0.append($1) }
        }
        #expect(base == Self.channel("c"))
        #expect(Set(results.map(\.displayName)).count == 64)
        #expect(results.allSatisfy { $0.memberCount % 1_000 == 199 })
    }
}
