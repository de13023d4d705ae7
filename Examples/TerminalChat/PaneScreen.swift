import Foundation

/// What a pane showed: its rows, and each cell with whether it is highlighted.
@MainActor
struct PaneScreen {
    var rows: [String]
    var marked: [(String, Bool)]
    var render: (String, Int, Bool) -> String

    func cells(_ width: Int) -> [String] {
        marked.map { render($0.0, width, $0.1) }
    }
}
