import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A child process with its standard output read line by line (for `chat-server` and the
/// Python client), killed if still running when the value goes away.
package final class Subprocess: @unchecked Sendable {
    // Written once in init; `Process` is thread-safe for the calls made here (terminate,
    // isRunning, terminationStatus, processIdentifier).
    package let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    package let lines: AsyncStream<String>
    /// Standard error as read so far: read all the time, so that a process that logs a lot (or
    /// a crash's backtrace) never blocks on a full pipe.
    private let errorBuffer = ErrorBuffer()

    /// The last 256 KB of a process's standard error, and whether it ended.
    private final class ErrorBuffer: @unchecked Sendable {
        let lock = NSLock()
        var bytes = Data()  // guarded by `lock`
        let done = DispatchSemaphore(value: 0)
        static let kept = 256 * 1024

        func append(_ chunk: Data) {
            lock.lock()
            bytes.append(chunk)
            if bytes.count > Self.kept { bytes.removeFirst(bytes.count - Self.kept) }
            lock.unlock()
        }

        var text: String {
            lock.lock()
            defer { lock.unlock() }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Starts `executable` with `arguments`, and `environment` over this process's; with
    /// `input`, that text is its standard input (then the end of the file).
    package init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], input: String? = nil
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        process.standardError = errors
        let (lines, continuation) = AsyncStream.makeStream(of: String.self)
        self.lines = lines
        let handle = output.fileHandleForReading
        Thread.detachNewThread {
            var buffer = Data()
            while true {
                let chunk = handle.readAvailable()
                if chunk.isEmpty { break }
                buffer.append(chunk)
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    continuation.yield(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
            }
            if !buffer.isEmpty { continuation.yield(String(decoding: buffer, as: UTF8.self)) }
            continuation.finish()
        }
        let errorHandle = errors.fileHandleForReading
        let errorBuffer = errorBuffer
        let process = process
        Thread.detachNewThread {
            while true {
                let chunk = errorHandle.readAvailable()
                if chunk.isEmpty { break }
                errorBuffer.append(chunk)
            }
            errorBuffer.done.signal()
            // A crash (a signal the tests do not send) is said at once, with what the process
            // wrote last: its backtrace, whatever the test then makes of it.
            Subprocess.waitForExit(of: process)
            let signal = process.terminationStatus
            if process.terminationReason == .uncaughtSignal && signal != SIGTERM && signal != SIGKILL {
                print(
                    "\(executable.lastPathComponent) \(arguments.prefix(8).joined(separator: " ")) died of signal \(signal): \(errorBuffer.text.suffix(16_000))"
                )
            }
        }
        let inputPipe = input.map { _ in Pipe() }
        if let inputPipe { process.standardInput = inputPipe }
        try process.run()
        if let input, let inputPipe {
            try inputPipe.fileHandleForWriting.write(contentsOf: Data(input.utf8))
            try inputPipe.fileHandleForWriting.close()
        }
    }

    /// Everything it prints on standard output from now until it ends, waiting for its end.
    package func remainingOutput() async -> String {
        var text = ""
        for await line in lines { text += line + "\n" }
        return text
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Asks the process to stop (SIGTERM) and waits, at most `seconds`, for it to exit: see
    /// ``stop(_:within:)``.
    @discardableResult
    package func stop(within seconds: Double = 20) -> Bool { Self.stop([self], within: seconds) }

    /// Asks every process of `processes` to stop (SIGTERM, all at once) and waits, at most
    /// `seconds`, for them to exit. One still running then is killed (SIGKILL), and says so on
    /// standard output with the end of its standard error. So a test that stops its nodes before
    /// the PostgreSQL they use leaves no process behind it, even one whose shutdown hangs.
    /// Blocks the calling thread (it is called from `defer`).
    ///
    /// - Returns: whether every one exited of itself within `seconds`.
    @discardableResult
    package static func stop(_ processes: [Subprocess], within seconds: Double = 20) -> Bool {
        for subprocess in processes where subprocess.process.isRunning { subprocess.process.terminate() }
        let deadline = Date().addingTimeInterval(seconds)
        while processes.contains(where: { $0.process.isRunning }), Date() < deadline { usleep(5_000) }
        var allStopped = true
        for subprocess in processes where subprocess.process.isRunning {
            allStopped = false
            let process = subprocess.process
            let tail = subprocess.standardError.split(separator: "\n").suffix(20).joined(separator: "\n")
            print(
                "\(process.executableURL?.lastPathComponent ?? "a process") \(process.processIdentifier) "
                    + "\((process.arguments ?? []).joined(separator: " ")) did not stop within \(seconds) s of "
                    + "SIGTERM: killed. The end of its standard error:\n\(tail)")
            kill(process.processIdentifier, SIGKILL)
            waitForExit(of: process)
        }
        return allStopped
    }

    /// What the process wrote to standard error (its last 256 KB): after it exited, all of it;
    /// while it runs, what came so far.
    package var standardError: String {
        if !process.isRunning {
            errorBuffer.done.wait()
            errorBuffer.done.signal()
        }
        return errorBuffer.text
    }

    /// Waits for the exit and returns the status.
    ///
    /// Polls instead of calling `waitUntilExit()`, here and on the reading thread: that call
    /// runs the calling thread's run loop, and on Linux a thread that ran one can crash in
    /// Foundation's run-loop finalizer when it ends (a CI run died in `__CFFinalizeRunLoop`,
    /// during the cluster convergence's kills and restarts).
    package func exitStatus() async -> Int32 {
        while process.isRunning {
            do { try await Task.sleep(for: .milliseconds(5)) } catch { usleep(5_000) }
        }
        return process.terminationStatus
    }

    /// Blocks the calling thread until `process` has exited, without `waitUntilExit()` (see
    /// ``exitStatus()``).
    package static func waitForExit(of process: Process) {
        while process.isRunning { usleep(5_000) }
    }

    /// The built product `name`, next to the test bundle.
    package static func product(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }
}
