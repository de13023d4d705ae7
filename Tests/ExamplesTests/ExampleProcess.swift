import Foundation
import Testing

/// Runs an executable product built next to the test bundle (`swift build --build-tests` builds
/// every product), feeding `input` on its standard input; returns its exit status and output.
func runExample(_ name: String, input: String = "", arguments: [String] = []) throws -> (status: Int32, output: String) {
    let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [
        directory.appendingPathComponent(name),
        Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name),
        Bundle.main.bundleURL.appendingPathComponent(name),
    ]
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
        throw ExampleMissing(name: name, searched: candidates.map(\.path))
    }
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    let stdin = Pipe()
    let stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let data = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

struct ExampleMissing: Error, CustomStringConvertible {
    var name: String
    var searched: [String]
    var description: String { "executable '\(name)' not built (run `swift build --build-tests`); looked in \(searched)" }
}

@Suite(.timeLimit(.minutes(1))) struct TopLevelExampleTests {
    /// The top-level-code example compiles with warnings as errors (its target's settings) and
    /// runs: the async forms are called, errors are thrown, tokens are kept.
    @Test func topLevelExampleRuns() throws {
        let (status, output) = try runExample("TopLevel")
        #expect(status == 0, "\(output)")
        #expect(output.contains("created ops"))
        #expect(output.contains("unread while reading: 0"))
        #expect(output.contains("reading 'nowhere' failed: Not found"))
        #expect(output.hasSuffix("done\n"))
    }
}
