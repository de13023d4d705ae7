import Observation

/// A live collection as an `@Observable` model for SwiftUI (Realm's `@ObservedResults`, Stream's
/// `ObservableObject` controllers).
///
/// ```swift no-run
/// struct ChannelsView: View {
///     @State var model = ObservedLiveCollection(repository.getChannels(query: query))
///     var body: some View {
///         List(model.snapshots) { channel in Text(channel.displayName ?? channel.channelId) }
///             .onAppear { if model.hasNext { model.nextPage() } }
///     }
/// }
/// ```
///
/// A view that reads ``snapshots`` (or any other property) re-renders when it changes. The
/// model observes its collection on the main actor (`.main` delivery) from its creation and
/// stops when it is released: its token is invalidated in `deinit`. Properties are assigned only
/// when their value changes, so a delivery that changes nothing a view read does not invalidate
/// it.
@MainActor
// Observation exists from macOS 14 / iOS 17; the rest of the package needs macOS 13 / iOS 16.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable
public final class ObservedLiveCollection<Element: Identifiable & Equatable & Sendable> {
    /// The elements, as last delivered on the main actor.
    public private(set) var snapshots: [Element]
    /// Where the data comes from.
    public private(set) var dataStatus: DataStatus
    /// Whether a page load is under way.
    public private(set) var loadingStatus: LoadingStatus
    /// The last error reported, if any.
    public private(set) var error: (any Error)?
    /// Whether more elements can be loaded after the last one (``nextPage()``).
    public private(set) var hasNext: Bool
    /// Whether more elements can be loaded before the first one (``previousPage()``).
    public private(set) var hasPrevious: Bool

    /// The observed collection.
    @ObservationIgnored public let collection: LiveCollection<Element>
    /// Released with the model; invalidated in `deinit` (nonisolated: a `let` of a `Sendable`
    /// type, so the deinit needs no actor).
    @ObservationIgnored private let slot = TokenSlot()

    /// Starts observing `collection` on the main actor; until the first delivery the properties
    /// show the collection's current state.
    public init(_ collection: LiveCollection<Element>) {
        self.collection = collection
        snapshots = collection.snapshots
        dataStatus = collection.dataStatus
        loadingStatus = collection.loadingStatus
        error = collection.error
        hasNext = collection.hasNext
        hasPrevious = collection.hasPrevious
        slot.set(
            collection.observe { [weak self] collection, _, _ in
                self?.apply(collection)
            })
    }

    deinit {
        slot.invalidate()
    }

    /// The number of elements.
    public var count: Int { snapshots.count }

    /// Asks the collection to load the next page; the result arrives as a change.
    public func nextPage() { collection.nextPage() }
    /// Asks the collection to load the previous page; the result arrives as a change.
    public func previousPage() { collection.previousPage() }

    private func apply(_ delivered: LiveCollection<Element>) {
        let newSnapshots = delivered.snapshots
        if newSnapshots != snapshots { snapshots = newSnapshots }
        if delivered.dataStatus != dataStatus { dataStatus = delivered.dataStatus }
        if delivered.loadingStatus != loadingStatus { loadingStatus = delivered.loadingStatus }
        let newError = delivered.error
        if (newError == nil) != (error == nil) || newError.map({ "\($0)" }) != error.map({ "\($0)" }) {
            error = newError
        }
        if delivered.hasNext != hasNext { hasNext = delivered.hasNext }
        if delivered.hasPrevious != hasPrevious { hasPrevious = delivered.hasPrevious }
    }
}
