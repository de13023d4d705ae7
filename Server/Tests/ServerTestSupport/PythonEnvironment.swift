import Foundation

/// What the Python clients of the tests need — `python3` with the `websockets` package, and
/// `selenium` for the console's browser tests — set up by the tests themselves, so that
/// `swift test --package-path Server` passes on a fresh machine as it is: when `python3` cannot
/// import them, they are installed once with pip into a folder of the build
/// (`.build/debug/python-packages`, not the system's), which the clients get on their
/// `PYTHONPATH`.
///
/// A machine where that cannot be done (no `python3`, no package index) fails the tests that
/// need it with the reason; they never skip.
package enum PythonEnvironment {
    /// The outcome, decided once per test process (a `static let` is initialized once, by
    /// whichever test asks first, the others waiting).
    private static let prepared = Result { () throws(PythonUnavailable) in try prepare() }

    /// The environment a Python client runs with (empty when the system's `python3` has
    /// `websockets` already).
    ///
    /// - Throws: ``PythonUnavailable`` naming what failed.
    package static func environment() throws -> [String: String] {
        try prepared.get()
    }

    /// The folder pip installs into: beside the test bundle, inside the build folder however the
    /// bundle is reached (`.build/debug` is a link to `.build/<triple>/debug`, so counting
    /// folders up from it would leave the build folder).
    package static var packages: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()  // .build/…/debug
            .appendingPathComponent("python-packages")
    }

    /// The packages the clients import.
    private static let modules = ["websockets", "selenium"]

    private static func prepare() throws(PythonUnavailable) -> [String: String] {
        let imports = ["python3", "-c", "import " + modules.joined(separator: ", ")]
        if run(imports).status == 0 { return [:] }
        let environment = ["PYTHONPATH": packages.path]
        if run(imports, environment: environment).status == 0 { return environment }
        let install = run(
            ["python3", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--target", packages.path]
                + modules)
        guard install.status == 0 else {
            throw PythonUnavailable(
                reason:
                    "`pip install \(modules.joined(separator: " "))` into \(packages.path) failed: \(install.output)")
        }
        let check = run(imports, environment: environment)
        guard check.status == 0 else {
            throw PythonUnavailable(
                reason:
                    "\(modules.joined(separator: ", ")) installed into \(packages.path) do not import: \(check.output)")
        }
        return environment
    }

    /// Runs `/usr/bin/env arguments…` to its end: its status and what it wrote.
    private static func run(_ arguments: [String], environment: [String: String] = [:]) -> (
        status: Int32, output: String
    ) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do {
            try process.run()
        } catch {
            return (-1, "\(error)")
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        Subprocess.waitForExit(of: process)
        return (process.terminationStatus, text)
    }
}

/// Why the Python clients cannot run on this machine.
package struct PythonUnavailable: Error, CustomStringConvertible {
    package let reason: String
    package var description: String {
        "the Python client tests need python3 with websockets and selenium: \(reason)"
    }
}
