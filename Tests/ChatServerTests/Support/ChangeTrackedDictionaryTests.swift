import Testing

@testable import ChatServer

@Suite struct ChangeTrackedDictionaryTests {
    @Test func recordsEveryWriteOnceUntilTaken() {
        var dictionary = ChangeTrackedDictionary<String, Int>(unchanged: ["a": 1, "b": 2])
        #expect(dictionary.changedKeys.isEmpty)
        _ = dictionary["a"]
        #expect(dictionary.changedKeys.isEmpty)
        dictionary["a"]! += 1
        dictionary["a"]! += 1
        dictionary["c"] = 3
        dictionary["b"] = nil
        #expect(dictionary.takeChangedKeys() == ["a", "b", "c"])
        #expect(dictionary.changedKeys.isEmpty)
        #expect(dictionary.entries == ["a": 3, "c": 3])
    }

    /// A set given back holds the next changes and only those: what was taken before is not
    /// reported again, the last key written before is recorded again when written again.
    @Test func aRecycledSetHoldsTheNextChangesOnly() {
        var dictionary = ChangeTrackedDictionary<String, Int>()
        dictionary["a"] = 1
        dictionary["b"] = 1
        let taken = dictionary.takeChangedKeys()
        #expect(taken == ["a", "b"])
        dictionary.recycleChangedKeys(taken)
        #expect(dictionary.changedKeys.isEmpty)
        dictionary["b"] = 2
        #expect(dictionary.takeChangedKeys() == ["b"])
    }

    /// Keys written between the take and the give-back are kept: the set given back is dropped.
    @Test func aSetGivenBackAfterNewWritesDoesNotHideThem() {
        var dictionary = ChangeTrackedDictionary<String, Int>()
        dictionary["a"] = 1
        let taken = dictionary.takeChangedKeys()
        dictionary["b"] = 1
        dictionary.recycleChangedKeys(taken)
        #expect(dictionary.takeChangedKeys() == ["b"])
    }

    /// A set with room for more than `recycledCapacity` keys is let go: one large operation
    /// keeps no large set for good.
    @Test func aLargeSetIsNotKept() {
        var dictionary = ChangeTrackedDictionary<Int, Int>()
        for key in 0..<(ChangeTrackedDictionary<Int, Int>.recycledCapacity * 4) { dictionary[key] = key }
        dictionary.recycleChangedKeys(dictionary.takeChangedKeys())
        #expect(dictionary.changedKeysCapacity == 0)
        dictionary[1] = 2
        dictionary.recycleChangedKeys(dictionary.takeChangedKeys())
        #expect(dictionary.changedKeys.isEmpty && dictionary.changedKeysCapacity > 0)
    }

    /// The list of changed keys holds every key written once, the first one inline; taking it
    /// forgets them, like taking the set.
    @Test func theListOfChangedKeysHoldsEachKeyOnce() {
        var dictionary = ChangeTrackedDictionary<String, Int>()
        #expect(Array(dictionary.takeChangedKeyList()).isEmpty)
        dictionary["a"] = 1
        #expect(Array(dictionary.takeChangedKeyList()) == ["a"])
        #expect(dictionary.changedKeys.isEmpty)
        dictionary["a"] = 2
        dictionary["b"] = 1
        dictionary["a"] = 3
        dictionary["c"] = nil
        let taken = Array(dictionary.takeChangedKeyList())
        #expect(taken.count == 3 && Set(taken) == ["a", "b", "c"])
        #expect(Array(dictionary.takeChangedKeyList()).isEmpty)
        // Written again after the take, a key is recorded again.
        dictionary["c"] = 4
        #expect(dictionary.takeChangedKeys() == ["c"])
    }
}
