import Foundation
import LiveChannels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Drawing the panes: redrawn as changes arrive on a terminal, printed after each command
/// otherwise; what changed since the last screen is highlighted.
extension Playground {
    func scheduleRedraw() {
        guard interactive, !redrawScheduled else { return }
        redrawScheduled = true
        Task { @MainActor in
            redrawScheduled = false
            watchTyping(of: actor)
            participants.forEach(watchTyping(of:))
            await show(after: nil)
        }
    }

    /// The rows of one pane: the user's connection and each channel of their live list.
    func rows(of participant: Participant) -> [String] {
        var rows = [
            "\(participant.id == actor.id ? "▶ " : "")\(participant.id) (\(Self.connection(of: participant.client)))"
        ]
        let channels = participant.list.snapshots
        if channels.isEmpty { rows.append("  (no channels)") }
        for channel in channels {
            var row = "  #\(channel.channelId) \(channel.displayName ?? "")"
            if channel.currentUserMembership == .banned { row += " [banned]" }
            if channel.unreadCount > 0 { row += " (\(channel.unreadCount)\(channel.hasMention ? " @" : ""))" }
            let typing = (participant.typing[channel.channelId]?.snapshot ?? []).subtracting([participant.id])
            if !typing.isEmpty { row += " ✎\(typing.sorted().joined(separator: ","))" }
            rows.append(row)
        }
        return rows
    }

    func show(after line: String?) async {
        // One pane (chat-terminal) may be wide enough for a whole status line.
        let widest = participants.count == 1 ? 64 : 40
        let width = max(26, min(widest, (terminalWidth() - 2) / participants.count - 3))
        var panes: [[String]] = []
        for participant in participants {
            let current = rows(of: participant)
            // A redraw that changes nothing in a pane (a delivery that arrives after the screen
            // of its command) keeps that pane's highlights; a change is compared with the rows
            // shown before it.
            if let screen = previous[participant.id], screen.rows == current {
                panes.append(screen.cells(width))
                continue
            }
            let before = previous[participant.id]?.rows
            var cells: [(String, Bool)] = current.enumerated().map { index, row in
                (row, before != nil && (index >= before!.count || before![index] != row))
            }
            // Channels that left the list are shown struck out.
            let currentIds = Set(current.dropFirst().map(channelId(ofRow:)))
            for row in (before ?? []).dropFirst()
            where !currentIds.contains(channelId(ofRow: row)) && row.hasPrefix("  #") {
                cells.append(("  ✗ " + row.dropFirst(2), true))
            }
            let screen = PaneScreen(rows: current, marked: cells) { [unowned self] text, width, changed in
                cell(text, width: width, changed: changed)
            }
            previous[participant.id] = screen
            let pane = screen.cells(width)
            panes.append(pane)
        }
        var output = interactive ? "\u{1B}[2J\u{1B}[H" : ""
        if interactive {
            let hint = participants.count == 1 ? "" : " — each pane is that user's own client"
            output += bold(title) + hint + ". Type help.\n\n"
        }
        let height = panes.map(\.count).max() ?? 0
        for row in 0..<height {
            output +=
                panes.map { row < $0.count ? $0[row] : String(repeating: " ", count: width + 2) }
                .joined(separator: " │ ") + "\n"
        }
        let pane = messagePane()
        if !pane.isEmpty { output += pane.joined(separator: "\n") + "\n" }
        if !lastMessage.isEmpty { output += lastMessage + "\n" }
        if interactive { output += "\n\(actor.id)> " }
        if !interactive { output += "\n" }
        write(output)
    }

    func channelId(ofRow row: String) -> String {
        String(row.drop { $0 == " " }.prefix { $0 != " " })
    }

    func cell(_ text: String, width: Int, changed: Bool) -> String {
        let visible = TerminalColumns.fitted(text, width: width)
        if color {
            return changed ? "  \u{1B}[1;30;43m\(visible)\u{1B}[0m" : "  \(visible)"
        }
        return (changed ? "* " : "  ") + visible
    }

    /// Writes unbuffered, so that echoed commands and screens keep their order in a pipe.
    func write(_ text: String) {
        FileHandle.standardOutput.write(Data(text.utf8))
    }

    func bold(_ text: String) -> String { color ? "\u{1B}[1m\(text)\u{1B}[0m" : text }

    func terminalWidth() -> Int {
        var size = winsize()
        if interactive, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return 110
    }
}
