/// What every Stream-style controller is: a main-actor object with a ``DataControllerState``
/// that loads its data on ``synchronize(_:)``.
@MainActor
public protocol DataController: AnyObject {
    /// Where the controller's data comes from; `.initialized` until the first `synchronize`.
    var state: DataControllerState { get }

    /// Loads the controller's data (the first page, or the entity) and starts following it;
    /// `completion`, on the main actor, gets `nil` once the server's data is shown, or the
    /// error (`ChatError`). Calling it again waits for the data under way and reports again.
    func synchronize(_ completion: (@MainActor (_ error: (any Error)?) -> Void)?)

    /// The same, async: returns once the server's data is shown (the controller's properties
    /// show it), or throws the `ChatError`.
    func synchronize() async throws
}

/// Told about a controller's ``DataControllerState`` changes, on the main actor; every
/// controller's delegate protocol refines it.
@MainActor
public protocol DataControllerStateDelegate: AnyObject {
    /// The controller's `state` changed to `state` (it already shows it).
    func controller(_ controller: any DataController, didChangeState state: DataControllerState)
}

extension DataControllerStateDelegate {
    public func controller(_ controller: any DataController, didChangeState state: DataControllerState) {}
}
