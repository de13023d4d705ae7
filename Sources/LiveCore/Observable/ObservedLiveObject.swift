import Observation

/// A live object as an `@Observable` model for SwiftUI.
///
/// ```swift no-run
/// struct ChannelTitle: View {
///     @State var model = ObservedLiveObject(repository.getChannel("ops"))
///     var body: some View { Text(model.snapshot?.displayName ?? "…") }
/// }
/// ```
///
/// A view that reads ``snapshot`` re-renders when the value changes. The model observes its
/// object on the main actor (`.main` delivery) from its creation and stops when it is released:
/// its token is invalidated in `deinit`. Properties are assigned only when their value changes.
@MainActor
// Observation exists from macOS 14 / iOS 17; the rest of the package needs macOS 13 / iOS 16.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, *)
@Observable
public final class ObservedLiveObject<Value: Sendable> {
    /// The value, as last delivered on the main actor; `nil` when it does not exist (yet).
    public private(set) var snapshot: Value?
    /// Where the data comes from.
    public private(set) var dataStatus: DataStatus
    /// Whether a request for the data is under way.
    public private(set) var loadingStatus: LoadingStatus
    /// The last error reported, if any.
    public private(set) var error: (any Error)?

    /// The observed object.
    @ObservationIgnored public let object: LiveObject<Value>
    @ObservationIgnored private let slot = TokenSlot()

    /// Starts observing `object` on the main actor; until the first delivery the properties show
    /// the object's current state.
    public init(_ object: LiveObject<Value>) {
        self.object = object
        snapshot = object.snapshot
        dataStatus = object.dataStatus
        loadingStatus = object.loadingStatus
        error = object.error
        slot.set(
            object.observe { [weak self] object, _ in
                self?.apply(object)
            })
    }

    deinit {
        slot.invalidate()
    }

    private func apply(_ delivered: LiveObject<Value>) {
        let newSnapshot = delivered.snapshot
        if !Self.same(newSnapshot, snapshot) { snapshot = newSnapshot }
        if delivered.dataStatus != dataStatus { dataStatus = delivered.dataStatus }
        if delivered.loadingStatus != loadingStatus { loadingStatus = delivered.loadingStatus }
        let newError = delivered.error
        if (newError == nil) != (error == nil) || newError.map({ "\($0)" }) != error.map({ "\($0)" }) {
            error = newError
        }
    }

    /// Whether two values are equal when `Value` is `Equatable`; otherwise `false` (every
    /// delivery then counts as a change).
    private static func same(_ a: Value?, _ b: Value?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        guard let equatable = a as? any Equatable else { return false }
        return equatable.isEqual(to: b)
    }
}

extension Equatable {
    fileprivate func isEqual(to other: Any) -> Bool {
        (other as? Self) == self
    }
}
