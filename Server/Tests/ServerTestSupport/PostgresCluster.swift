import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A throw-away PostgreSQL cluster for one test: `initdb` in a temporary directory, started on
/// a free port of 127.0.0.1 (TCP only, trust authentication), stopped and removed by ``stop()``.
/// PostgreSQL refuses to run as root, so when the tests run as root the cluster runs as the
/// `postgres` user that Debian's package creates. Debian's `postgresql` package is what
/// `scripts/test` installs when it is missing; a test that cannot start a cluster fails with the
/// reason (``PostgresUnavailable``), never skips.
package final class PostgresCluster: Sendable {
    package let directory: URL
    package let port: Int
    private let bin: URL
    private let runsAsPostgres: Bool

    private init(directory: URL, port: Int, bin: URL, runsAsPostgres: Bool) {
        self.directory = directory
        self.port = port
        self.bin = bin
        self.runsAsPostgres = runsAsPostgres
    }

    /// The URL of `database` on this cluster.
    package func url(_ database: String) -> String { "postgres://postgres@127.0.0.1:\(port)/\(database)" }

    /// Starts a new cluster.
    ///
    /// - Throws: ``PostgresUnavailable`` saying what is missing or what failed.
    package static func start() throws -> PostgresCluster {
        let bin = try binaries()
        let asPostgres = getuid() == 0
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent("chat-pg-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        if asPostgres { try run(URL(fileURLWithPath: "/bin/chown"), ["postgres:postgres", directory.path], as: false) }
        let data = directory.appendingPathComponent("data").path
        try run(
            bin.appendingPathComponent("initdb"),
            ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], as: asPostgres)
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = Int.random(in: 20_000...45_000)
            do {
                try run(
                    bin.appendingPathComponent("pg_ctl"),
                    [
                        "-D", data, "-l", directory.appendingPathComponent("log").path, "-w", "-t", "30", "-o",
                        "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1", "start",
                    ], as: asPostgres)
                return PostgresCluster(directory: directory, port: port, bin: bin, runsAsPostgres: asPostgres)
            } catch {
                lastError = error
            }
        }
        throw PostgresUnavailable(reason: "the cluster did not start: \(lastError.map { "\($0)" } ?? "")")
    }

    /// Creates `database`, or runs any SQL (`psql -c`) on `database`.
    package func sql(_ statement: String, database: String = "postgres") throws {
        try Self.run(
            bin.appendingPathComponent("psql"),
            [
                "-h", "127.0.0.1", "-p", "\(port)", "-U", "postgres", "-d", database, "-v", "ON_ERROR_STOP=1", "-q",
                "-c", statement,
            ],
            as: false)
    }

    /// Creates a role `user` with `password` that must sign in with it (scram-sha-256, ahead of
    /// the cluster's trust rules); returns its URL to `database`, with `password` as given.
    package func addPasswordRole(_ user: String, password: String, database: String, urlPassword: String) throws
        -> String
    {
        try sql("CREATE ROLE \(user) LOGIN PASSWORD '\(password)'; GRANT ALL ON DATABASE \(database) TO \(user)")
        try sql("GRANT ALL ON SCHEMA public TO \(user)", database: database)
        let rules = directory.appendingPathComponent("data/pg_hba.conf")
        let existing = try String(contentsOf: rules, encoding: .utf8)
        try ("host all \(user) 127.0.0.1/32 scram-sha-256\n" + existing).write(
            to: rules, atomically: false, encoding: .utf8)
        try sql("SELECT pg_reload_conf()")
        return "postgres://\(user):\(urlPassword)@127.0.0.1:\(port)/\(database)"
    }

    /// A new, empty database.
    package func createDatabase() throws -> String {
        let name = "chat_\(UUID().uuidString.prefix(8).lowercased())"
        try sql("CREATE DATABASE \(name)")
        return name
    }

    /// Stops every process of the server (SIGSTOP to the postmaster and each of its children):
    /// its sockets stay open and nothing answers, as a machine that froze or a network that
    /// drops everything. ``thaw()`` lets it go on; ``stop()`` needs it thawed.
    package func freeze() throws { try signalEveryProcess(SIGSTOP) }

    /// Lets a server that ``freeze()`` stopped go on (SIGCONT).
    package func thaw() throws { try signalEveryProcess(SIGCONT) }

    private func signalEveryProcess(_ signal: Int32) throws {
        let pidFile = directory.appendingPathComponent("data/postmaster.pid")
        guard let text = try? String(contentsOf: pidFile, encoding: .utf8),
            let postmaster = text.split(separator: "\n").first.flatMap({ Int32($0) })
        else { throw PostgresUnavailable(reason: "no postmaster.pid in \(directory.path)") }
        // The postmaster first, so that it starts no new child meanwhile; then its children.
        var pids = [postmaster]
        let children = try String(contentsOfFile: "/proc/\(postmaster)/task/\(postmaster)/children", encoding: .utf8)
        pids += children.split(separator: " ").compactMap { Int32($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        for pid in pids where processSignal(signal, to: pid) != 0 && errno != ESRCH {
            throw PostgresUnavailable(reason: "signal \(signal) to PostgreSQL's process \(pid) failed: errno \(errno)")
        }
    }

    /// Stops the server at once (`pg_ctl -m immediate`: as a crash would), keeping its files.
    package func kill() throws { try stop(mode: "immediate") }

    /// Stops the server with `pg_ctl -m mode` (`fast`: sessions ended, transactions rolled
    /// back, a clean shutdown; `immediate`: as a crash), keeping its files for ``restart()``.
    package func stop(mode: String) throws {
        try Self.run(
            bin.appendingPathComponent("pg_ctl"),
            ["-D", directory.appendingPathComponent("data").path, "-m", mode, "-w", "stop"],
            as: runsAsPostgres)
    }

    /// Starts the server again on its files and port, after ``kill()``. A start that is not
    /// ready within 30 s (crash recovery on a busy machine) is tried once more, for 90 s, after
    /// stopping whatever the first left running.
    ///
    /// - Throws: ``PostgresUnavailable`` with the end of the server's log when both fail.
    package func restart() throws {
        do {
            try start(waitingSeconds: 30)
        } catch {
            try? stop(mode: "immediate")
            do {
                try start(waitingSeconds: 90)
            } catch let second as PostgresUnavailable {
                throw PostgresUnavailable(
                    reason: "\(second.reason) (first try: \(error)); the server's log ends: \(logTail())")
            }
        }
    }

    private func start(waitingSeconds: Int) throws {
        try Self.run(
            bin.appendingPathComponent("pg_ctl"),
            [
                "-D", directory.appendingPathComponent("data").path, "-l", directory.appendingPathComponent("log").path,
                "-w", "-t", "\(waitingSeconds)",
                "-o", "-p \(port) -k \(directory.path) -c listen_addresses=127.0.0.1", "start",
            ], as: runsAsPostgres)
    }

    /// The last lines of the server's log.
    private func logTail(lines: Int = 20) -> String {
        let text = (try? String(contentsOf: directory.appendingPathComponent("log"), encoding: .utf8)) ?? "(no log)"
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }

    /// Stops the cluster at once and removes its files.
    package func stop() {
        try? Self.run(
            bin.appendingPathComponent("pg_ctl"),
            ["-D", directory.appendingPathComponent("data").path, "-m", "immediate", "stop"],
            as: runsAsPostgres)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The newest installed PostgreSQL's `bin` directory.
    private static func binaries() throws -> URL {
        let root = URL(fileURLWithPath: "/usr/lib/postgresql")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        guard let newest = versions.compactMap(Int.init).max() else {
            throw PostgresUnavailable(
                reason:
                    "no PostgreSQL server in /usr/lib/postgresql: install Debian's postgresql package (scripts/test does)"
            )
        }
        return root.appendingPathComponent("\(newest)/bin")
    }

    /// Runs `executable` to its end (as the `postgres` user with `asPostgres`), its output in a
    /// file: `pg_ctl start` leaves the server it starts holding its output, so a pipe would
    /// never reach its end. Spawned and waited for with `posix_spawn` and `waitpid`, on the
    /// calling thread.
    ///
    /// - Throws: ``PostgresUnavailable`` with what it wrote when it fails.
    private static func run(_ executable: URL, _ arguments: [String], as asPostgres: Bool) throws {
        let command =
            asPostgres
            ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable.path] + arguments : [executable.path] + arguments
        let log = "/tmp/chat-pg-run-\(UUID().uuidString)"
        defer { unlink(log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var argv = command.map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw PostgresUnavailable(reason: "\(command[0]) could not be started (errno \(spawned))")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exited = (status & 0x7F) == 0
        let code = (status >> 8) & 0xFF
        guard exited && code == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw PostgresUnavailable(reason: "\(executable.lastPathComponent) failed (status \(status)): \(text)")
        }
    }
}

/// Why a test could not get its PostgreSQL.
package struct PostgresUnavailable: Error, CustomStringConvertible {
    package let reason: String
    package init(reason: String) { self.reason = reason }
    package var description: String { "PostgreSQL for the tests: \(reason)" }
}

/// `kill(2)` (the cluster's own ``PostgresCluster/kill()`` hides the C function's name there).
private func processSignal(_ signal: Int32, to pid: Int32) -> Int32 { kill(pid, signal) }
