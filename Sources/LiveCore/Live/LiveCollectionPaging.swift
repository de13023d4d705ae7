/// Whoever backs a live collection and can load more of it. ``LiveCollection/nextPage()`` and
/// ``LiveCollection/previousPage()`` are forwarded here; the pager commits the loaded elements
/// to the collection's source.
///
/// The source keeps its pager alive, so a pager must refer back to the source weakly.
public protocol LiveCollectionPaging: AnyObject, Sendable {
    /// Loads the page after the last loaded element. Called on the caller's thread; must not
    /// block.
    func loadNextPage()
    /// Loads the page before the first loaded element. Called on the caller's thread; must not
    /// block.
    func loadPreviousPage()
}
