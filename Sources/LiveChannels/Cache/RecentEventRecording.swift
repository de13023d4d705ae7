/// A cache that records the events it applies in a ``RecentEvents`` log.
protocol RecentEventRecording<Element>: Sendable {
    associatedtype Element: Sendable
    /// Starts tracking a response; see ``RecentEvents/begin()``.
    func beginResponse() -> Int
    /// Stops tracking it; see ``RecentEvents/end(_:newerEvents:)``.
    func endResponse(_ id: Int, newerEvents: Int) -> [Element]
}
