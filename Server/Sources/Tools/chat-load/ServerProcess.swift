import ChatAPI
import Foundation

#if canImport(Glibc)
    import Glibc
    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    import Darwin
    private let systemRead = Darwin.read
#endif

/// A process the load generator starts and measures: a `chat-server` node, the broadcast floor
/// (`chat-load idle --floor-server`) or a connection worker (`chat-load idle-worker`). Its first
/// line of output names the port it listens on (`listening on ws://HOST:PORT/...`); the later
/// lines are read on demand (``nextLine()``). Stopped with SIGTERM by ``stop()``.
///
/// - Threading: `@unchecked Sendable` without a lock: every stored property is written only in
///   `init` (`port` too), and `Process` and `Pipe`'s handles are thread-safe for the calls made
///   here.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    private let output = Pipe()
    private let input = Pipe()
    /// The port from the first line, or 0 for a process that prints none (a worker).
    private(set) var port = 0

    /// The product `name` built beside this `chat-load`.
    static func product(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Starts `executable` with `arguments` (without `CHAT_SERVER_SECRET`: dev tokens only;
    /// without `CHAT_SERVER_POSTGRES`: its storage is what `arguments` say — `scripts/bench-cluster`
    /// exports it, and a node meant to be in memory was otherwise on PostgreSQL) and, when
    /// `listens`, waits for its first line and reads the port from it.
    ///
    /// - Throws: `unavailable` when it does not start or prints no port.
    init(_ executable: URL, _ arguments: [String], listens: Bool = true) async throws {
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["CHAT_SERVER_SECRET"] = nil
        environment["CHAT_SERVER_POSTGRES"] = nil
        process.environment = environment
        process.standardOutput = output
        process.standardInput = input
        process.standardError = FileHandle.nullDevice
        try process.run()
        guard listens else { return }
        let first = await nextLine() ?? ""
        guard let match = first.firstMatch(of: /:(\d+)\//), let port = Int(match.1) else {
            stop()
            throw ChatError.unavailable("\(executable.lastPathComponent) \(arguments) did not start: \(first)")
        }
        self.port = port
        // Whatever it prints later is read and dropped: a full pipe would stop it.
        let handle = output.fileHandleForReading
        Thread.detachNewThread {
            // read(2), not `availableData`: that ends the process on an interrupted read (EINTR).
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes {
                    systemRead(handle.fileDescriptor, $0.baseAddress, $0.count)
                }
                if count == 0 || (count < 0 && errno != EINTR) { break }
            }
        }
    }

    deinit { stop() }

    /// The next line the process prints, or `nil` at its end (read on a thread of its own).
    func nextLine() async -> String? {
        let handle = output.fileHandleForReading
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var line = Data()
                while true {
                    let byte = handle.readData(ofLength: 1)
                    if byte.isEmpty {
                        return continuation.resume(
                            returning: line.isEmpty ? nil : String(decoding: line, as: UTF8.self))
                    }
                    if byte == Data("\n".utf8) { break }
                    line.append(byte)
                }
                continuation.resume(returning: String(decoding: line, as: UTF8.self))
            }
        }
    }

    /// Closes the process's standard input (a worker lets its connections go then).
    func closeInput() { try? input.fileHandleForWriting.close() }

    /// Resident memory now, in bytes (0 where `/proc` has none).
    var residentBytes: Int { LoadStatistics.residentBytes(of: process.processIdentifier) ?? 0 }

    /// CPU time used so far, in seconds (0 where `/proc` has none).
    var cpuSeconds: Double { LoadStatistics.cpuSeconds(of: process.processIdentifier) ?? 0 }

    /// Stops it with SIGTERM and waits for its exit.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}
