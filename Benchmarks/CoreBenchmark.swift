import Foundation
import LiveCore
import TestSupport

/// `Benchmarks core`: the cost of observing, of fanning a change out to many observers, and of
/// maintaining an aggregate incrementally.
enum CoreBenchmark {
    static func run() {
        print("## core\n")
        tokens()
        fanOut()
        reduction()
    }

    // MARK: Observe + invalidate

    static func tokens() {
        let count = 100_000
        let source = LiveObjectSource<Int>(snapshot: 0)
        let object = source.object
        let ours =
            Harness.median(runs: 5) {
                for _ in 0..<count {
                    object.observe(on: .synchronous) { _, _ in }.invalidate()
                }
            } / Double(count)
        let center = NotificationCenter()
        let name = Notification.Name("bench")
        let foundation =
            Harness.median(runs: 5) {
                for _ in 0..<count {
                    let observer = center.addObserver(forName: name, object: nil, queue: nil) { _ in }
                    center.removeObserver(observer)
                }
            } / Double(count)

        // Foundation's first, on fresh pages: resident memory does not shrink after a free, so
        // whichever is measured second would reuse the first one's pages.
        let foundationBytes = bytesPerObserver(count) {
            center.addObserver(forName: name, object: nil, queue: nil) { _ in }
        }
        let ourBytes = bytesPerObserver(count) { source.object.observe(on: .synchronous) { _, _ in } }
        print("Observe + invalidate (\(count) tokens), baseline Foundation NotificationCenter add + remove:\n")
        Harness.table(
            ["", "LiveCore", "NotificationCenter", "ratio (NC/ours)"],
            [
                ["time per token", Harness.format(ours), Harness.format(foundation), Harness.ratio(foundation / ours)],
                [
                    "bytes per registered observer",
                    ourBytes.map { "\($0)" } ?? "n/a", foundationBytes.map { "\($0)" } ?? "n/a",
                    zip2(foundationBytes, ourBytes).map { Harness.ratio(Double($0) / Double($1)) } ?? "—",
                ],
            ])
        print()
        withExtendedLifetime(object) {}
    }

    /// Heap bytes per registration, measured over `count` live registrations.
    static func bytesPerObserver(_ count: Int, _ register: () -> Any) -> Int? {
        guard let before = MemoryProbe.allocatedBytes() else { return nil }
        var keep: [Any] = []
        keep.reserveCapacity(count)
        let reserved = MemoryProbe.allocatedBytes()! - before
        for _ in 0..<count { keep.append(register()) }
        let after = MemoryProbe.allocatedBytes()!
        let perObserver = (after - before - reserved) / count
        keep.removeAll()
        return perObserver
    }

    static func zip2(_ a: Int?, _ b: Int?) -> (Int, Int)? {
        guard let a, let b else { return nil }
        return (a, b)
    }

    // MARK: Fan-out

    /// Prebuilt snapshots that each differ from `base` by one element (modified, inserted or
    /// deleted), and the changes base → variant and variant → base, so that a benchmark can make
    /// single-element commits without paying to copy the array each time.
    struct Alternation {
        let base: [Item]
        let variants: [(snapshot: [Item], there: CollectionChange, back: CollectionChange)]

        init(count: Int, variants variantCount: Int, seed: UInt64) {
            var generator = SeededGenerator(seed: seed)
            base = (0..<count).map { Item(id: $0, value: 0) }
            var variants: [([Item], CollectionChange, CollectionChange)] = []
            for index in 0..<variantCount {
                var snapshot = base
                let position = Int.random(in: 0..<count, using: &generator)
                switch index % 3 {
                case 0: snapshot[position].value += 1
                case 1: snapshot.insert(Item(id: count + index), at: position)
                default: snapshot.remove(at: position)
                }
                variants.append(
                    (snapshot, CollectionChange(from: base, to: snapshot), CollectionChange(from: snapshot, to: base)))
            }
            self.variants = variants
        }

        /// Makes `commits` single-element commits to `source` (which must hold `base`).
        func drive(_ source: LiveCollectionSource<Item>, commits: Int) {
            for commit in 0..<commits {
                let variant = variants[(commit / 2) % variants.count]
                if commit % 2 == 0 {
                    source.publish(snapshots: variant.snapshot, change: variant.there)
                } else {
                    source.publish(snapshots: base, change: variant.back)
                }
            }
        }
    }

    static func fanOut() {
        let observers = 1_000
        let commits = 10_000
        let alternation = Alternation(count: 10_000, variants: 64, seed: 3)
        let source = LiveCollectionSource<Item>(snapshots: alternation.base)
        let collection = source.collection
        let sink = Sink()
        var tokens: [NotificationToken] = []
        for _ in 0..<observers {
            tokens.append(
                collection.observe(on: .synchronous) { collection, change, _ in
                    sink.note(change?.count ?? 0, collection.count)
                })
        }
        let ours =
            Harness.median(runs: 3, warmUp: false) { alternation.drive(source, commits: commits) }
            / Double(commits * observers)
        tokens.forEach { $0.invalidate() }

        // Floor: calling the same number of closures directly with the same arguments.
        let closures: [@Sendable (Int, Int) -> Void] = (0..<observers).map { _ in { sink.note($0, $1) } }
        let floor =
            Harness.median(runs: 3, warmUp: false) {
                for commit in 0..<commits {
                    let change = alternation.variants[(commit / 2) % alternation.variants.count].there
                    for closure in closures { closure(change.count, alternation.base.count) }
                }
            } / Double(commits * observers)
        print("Fan-out: 10,000 elements, \(observers) synchronous observers, \(commits) single-element commits:\n")
        Harness.table(
            ["", "time per commit per observer", "ratio to floor"],
            [
                ["LiveCore delivery (snapshot + change + handle)", Harness.format(ours), Harness.ratio(ours / floor)],
                ["floor: direct closure call", Harness.format(floor), "1.0×"],
            ])
        print()
        blackHole(sink.total)
    }

    // MARK: Incremental reduction

    static func reduction() {
        let alternation = Alternation(count: 100_000, variants: 64, seed: 5)
        let plain = LiveCollectionSource<Item>(snapshots: alternation.base)
        let incrementalSource = LiveCollectionSource<Item>(snapshots: alternation.base)
        let sum = incrementalSource.collection.sum { $0.value }

        // 100,000 commits to each source in 50 interleaved rounds, so that the machine's speed
        // drifting (other tenants, frequency) hits both alike. Per commit: the fastest round
        // (the cost with the least interference) and the median round.
        let rounds = 50
        let perRound = 2_000
        alternation.drive(plain, commits: perRound)
        alternation.drive(incrementalSource, commits: perRound)
        var bare: [Double] = []
        var incremental: [Double] = []
        for _ in 0..<rounds {
            bare.append(Harness.once { alternation.drive(plain, commits: perRound) } / Double(perRound))
            incremental.append(
                Harness.once { alternation.drive(incrementalSource, commits: perRound) } / Double(perRound))
        }
        bare.sort()
        incremental.sort()

        // Baseline: the same live sum recomputed from scratch on every commit.
        let resumSource = LiveCollectionSource<Item>(snapshots: alternation.base)
        let resummed = LiveObjectSource<Int>()
        let token = resumSource.collection.observe(on: .synchronous) { collection, _, _ in
            resummed.publish(snapshot: collection.snapshots.reduce(0) { $0 + $1.value })
        }
        let sampleCommits = 2_000
        let resum =
            Harness.median(runs: 3) { alternation.drive(resumSource, commits: sampleCommits) }
            / Double(sampleCommits)
        token.invalidate()

        let fastest = (bare: bare[0], incremental: incremental[0])
        let median = (bare: bare[rounds / 2], incremental: incremental[rounds / 2])
        let upkeep = (
            fastest: max(fastest.incremental - fastest.bare, 1e-9),
            median: max(median.incremental - median.bare, 1e-9)
        )
        print("Incremental reduction: sum over 100,000 elements, single-element commits (\(rounds * perRound) each):\n")
        Harness.table(
            ["per commit", "fastest round", "median round"],
            [
                ["bare commit, no observer", Harness.format(fastest.bare), Harness.format(median.bare)],
                [
                    "commit + incremental `sum`", Harness.format(fastest.incremental),
                    Harness.format(median.incremental),
                ],
                ["aggregate upkeep (difference)", Harness.format(upkeep.fastest), Harness.format(upkeep.median)],
                ["commit + re-sum (\(sampleCommits) commits, median of 3)", Harness.format(resum), "—"],
            ])
        print(
            "\nratio re-sum / incremental, aggregate upkeep alone: "
                + "\(Harness.ratio((resum - fastest.bare) / upkeep.fastest)) (fastest), "
                + "\(Harness.ratio((resum - median.bare) / upkeep.median)) (median); "
                + "whole commit: \(Harness.ratio(resum / median.incremental)) (median)")
        // Every round ends where it began; one more commit (a modified element) checks the sum.
        let variant = alternation.variants[0]
        incrementalSource.publish(snapshots: variant.snapshot, change: variant.there)
        let recomputed = variant.snapshot.reduce(0) { $0 + $1.value }
        print("(check: incremental sum \(sum.snapshot ?? -1), recomputed \(recomputed))\n")
    }
}

/// Accumulates callback work so it cannot be optimized away.
final class Sink: @unchecked Sendable {
    // Unsynchronized on purpose: written only from the benchmark's own thread (synchronous
    // delivery), and read after the run; a lock would distort the figure being measured.
    var total = 0
    @inline(never) func note(_ a: Int, _ b: Int) { total &+= a &+ b }
}
