import LiveCore

/// Part 1 of the tour: the observation core on its own, with no chat involved.
///
/// A `LiveCollectionSource` is the writing side (in the SDK, the client's cache holds it); a
/// `LiveCollection` is what apps observe. Every change arrives with the snapshot it leads to.
struct Todo: Identifiable, Equatable, Sendable {
    var id: Int
    var title: String
}

enum CoreTour {
    static func run() async {
        print("── Part 1: live collections ──")
        let source = LiveCollectionSource<Todo>(snapshots: [Todo(id: 1, title: "Write the diff")])
        let todos = source.collection

        // Observe with a token. The first call carries the current state and a nil change.
        // (`.synchronous` delivers right after each commit; the default is the main actor.)
        let token = todos.observe(on: .synchronous) { collection, change, _ in
            guard let change else {
                print("initial: \(collection.snapshots.map(\.title))")
                return
            }
            print("changed: \(change) → \(collection.snapshots.map(\.title))")
        }

        source.publish(snapshots: [Todo(id: 2, title: "Ship it"), Todo(id: 1, title: "Write the diff")])
        source.publish(snapshots: [Todo(id: 2, title: "Ship it!"), Todo(id: 1, title: "Write the diff")])

        // A derived value, kept current incrementally.
        let titleLength = todos.sum { $0.title.count }
        print("total title length: \(titleLength.snapshot ?? 0)")

        // Iterate updates with for await: first the current snapshot, then each change.
        // Breaking out of the loop ends that observation.
        for await update in todos.updates {
            guard let change = update.change else {
                print("for await, first: \(update.snapshots.map(\.title))")
                source.publish(snapshots: update.snapshots + [Todo(id: 3, title: "Celebrate")])
                continue
            }
            print("for await: \(change) → \(update.snapshots.map(\.title))")
            break
        }
        print("total title length now: \(titleLength.snapshot ?? 0)")

        token.invalidate()
        source.publish(snapshots: [])
        print("after invalidate(): no more callbacks (the last commit printed nothing)\n")
    }
}
