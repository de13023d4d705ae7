import Foundation
import NIOConcurrencyHelpers
import ServerTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A `chat-terminal` process driven line by line, as a person types: what it prints is read as
/// it comes, so that a test waits for what the screen says instead of sleeping a guess.
final class TerminalSession: @unchecked Sendable {
    // Set once in init; `Process` and `Pipe` are thread-safe for the calls made here.
    let process: Process
    private let input = Pipe()
    private let printed = NIOLockedValueBox("")
    private let finished = DispatchSemaphore(value: 0)

    /// Starts `chat-terminal` with `arguments`; with `onATerminal`, on a pseudo-terminal
    /// (Python's `pty.spawn` between these pipes and the terminal: its standard input and output
    /// are a tty, so it redraws its screen as for a person), else on the pipes themselves (it
    /// prints a screen per command).
    init(_ arguments: [String], onATerminal: Bool = false, environment: [String: String] = [:]) throws {
        let process = Process()
        let output = Pipe()
        let executable = Subprocess.product("chat-terminal")
        if onATerminal {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                ["python3", "-c", "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)", executable.path]
                + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let handle = output.fileHandleForReading
        let (printed, finished) = (printed, finished)
        Thread.detachNewThread {
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                printed.withLockedValue { $0 += String(decoding: chunk, as: UTF8.self) }
            }
            finished.signal()
        }
        try process.run()
        self.process = process
    }

    /// Everything printed so far.
    var text: String { printed.withLockedValue { $0 } }

    /// Types `line` and Return.
    func type(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Types `line` every half second until what was printed after the latest one satisfies
    /// `condition`, for at most `seconds`: that text, or `nil` when it never did.
    func type(_ line: String, until condition: (String) -> Bool, seconds: Double = 30) async throws -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline {
            let start = text.utf8.count
            try type(line)
            try await Task.sleep(for: .milliseconds(500))
            let after = String(decoding: text.utf8.dropFirst(start), as: UTF8.self)
            if condition(after) { return after }
        }
        return nil
    }

    /// Waits (at most `seconds`) until everything printed satisfies `condition`.
    func wait(seconds: Double = 30, until condition: (String) -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1_000))
        while ContinuousClock.now < deadline {
            if condition(text) { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return condition(text)
    }

    /// Ctrl-C.
    func interrupt() { kill(process.processIdentifier, SIGINT) }

    /// Ends standard input (when `quitting`, after typing `quit`) and waits for the process to
    /// exit: its status and all it printed.
    func end(quitting: Bool = true) -> (status: Int32, text: String) {
        if quitting { try? type("quit") }
        try? input.fileHandleForWriting.close()
        Subprocess.waitForExit(of: process)
        finished.wait()
        return (process.terminationStatus, text)
    }
}
