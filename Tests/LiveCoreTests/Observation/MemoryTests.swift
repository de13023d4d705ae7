import LiveCore
import TestSupport
import Testing

/// Nothing observed and nothing referenced is freed; tokens and iterators let go once done.
@Suite struct MemoryTests {
    @Test func objectWithNoTokensIsFreed() {
        weak var weakSource: LiveObjectSource<Int>?
        weak var weakObject: LiveObject<Int>?
        do {
            let source = LiveObjectSource<Int>(snapshot: 1)
            let object = source.object
            weakSource = source
            weakObject = object
            let token = object.observe(on: .synchronous) { object, _ in _ = object.snapshot }
            token.invalidate()
        }
        #expect(weakSource == nil)
        #expect(weakObject == nil)
    }

    @Test func validTokenKeepsTheValueAliveUntilInvalidated() {
        weak var weakSource: LiveCollectionSource<Item>?
        var token: NotificationToken?
        do {
            let source = LiveCollectionSource<Item>(snapshots: [Item(id: 1)])
            weakSource = source
            token = source.collection.observe(on: .synchronous) { _, _, _ in }
        }
        #expect(weakSource != nil)
        token?.invalidate()
        #expect(weakSource == nil)
        token = nil
    }

    @Test func droppedTokenReleasesTheValue() {
        weak var weakSource: LiveCollectionSource<Item>?
        var token: NotificationToken? = nil
        do {
            let source = LiveCollectionSource<Item>()
            weakSource = source
            token = source.collection.observe(on: .synchronous) { _, _, _ in }
        }
        #expect(weakSource != nil)
        #expect(token?.isValid == true)
        token = nil
        #expect(weakSource == nil)
    }

    @Test func tokenIsFreedAfterInvalidation() {
        weak var weakToken: NotificationToken?
        let source = LiveObjectSource<Int>(snapshot: 1)
        do {
            let token = source.object.observe(on: .synchronous) { _, _ in }
            weakToken = token
            token.invalidate()
        }
        #expect(weakToken == nil)
    }

    @Test func derivedValuesAreFreedAndReleaseTheirInput() {
        let source = LiveCollectionSource<Item>(snapshots: [Item](ids: [1, 2]))
        weak var weakSum: LiveObject<Int>?
        weak var weakMapped: LiveObject<Int>?
        weak var weakCombined: LiveObject<Int>?
        do {
            let sum = source.collection.sum { $0.id }
            let mapped = sum.map { $0 * 2 }
            let combined = sum.combineLatest(mapped) { ($0 ?? 0) + ($1 ?? 0) }
            weakSum = sum
            weakMapped = mapped
            weakCombined = combined
            #expect(combined.snapshot == 9)
            let token = combined.observe(on: .synchronous) { _, _ in }
            token.invalidate()
        }
        #expect(weakCombined == nil)
        #expect(weakMapped == nil)
        #expect(weakSum == nil)
        #expect(!source.isObserved)
    }

    @Test func iteratorReleasesWhenTheLoopEnds() async {
        weak var weakSource: LiveObjectSource<Int>?
        do {
            let source = LiveObjectSource<Int>(snapshot: 1)
            weakSource = source
            let object = source.object
            for await value in object.values {
                #expect(value == 1)
                break
            }
            #expect(!source.isObserved)
        }
        #expect(weakSource == nil)
    }

    @Test func iteratorReleasesWhenTheTaskIsCancelled() async {
        weak var weakSource: LiveCollectionSource<Item>?
        let started = AsyncStream<Void>.makeStream()
        let task: Task<Int, Never>
        do {
            let source = LiveCollectionSource<Item>()
            weakSource = source
            let collection = source.collection
            task = Task {
                var count = 0
                for await _ in collection.updates {
                    count += 1
                    started.continuation.yield()
                }
                return count
            }
        }
        var signals = started.stream.makeAsyncIterator()
        await signals.next()
        #expect(weakSource != nil)
        task.cancel()
        #expect(await task.value == 1)
        #expect(weakSource == nil)
    }
}
