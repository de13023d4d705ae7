import Foundation
import Testing

/// The operator's console driven in Debian's headless Chromium by `console_browser.py`
/// (Selenium with chromedriver, in ChatToolsTests/Clients), for the suites that open the
/// console — a node's own, or a cluster's through its nginx.
package enum ConsoleBrowser {
    /// The script.
    package static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ChatToolsTests/Clients/console_browser.py")

    /// Runs the script with `arguments` to its end and expects its `OK`; the lines it printed.
    /// Chromium or chromedriver missing fails the test saying which (never a skip).
    @discardableResult
    package static func drive(_ arguments: [String]) async throws -> [String] {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            try #require(
                FileManager.default.isExecutableFile(atPath: tool),
                "\(tool) is missing: scripts/system-packages installs Debian's chromium and chromium-driver")
        }
        let python = try Subprocess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", script.path] + arguments,
            environment: try PythonEnvironment.environment())
        var lines: [String] = []
        for await line in python.lines { lines.append(line) }
        let status = await python.exitStatus()
        #expect(
            status == 0 && lines.last == "OK",
            "exit \(status):\n\(lines.joined(separator: "\n"))\n\(python.standardError)")
        return lines
    }

    /// Where the pages' pictures go: `CONSOLE_SCREENSHOTS` when it names a folder, else a new
    /// temporary folder.
    package static func screenshots() throws -> String {
        let folder =
            ProcessInfo.processInfo.environment["CONSOLE_SCREENSHOTS"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("console-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}
