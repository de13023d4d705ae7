import ChatAPI
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Holds a server's SQLite file for this server alone: an exclusive `flock(2)` on the file,
/// which a second server asking for it is refused, while SQLite's own locks stay the ordinary
/// shared ones — so an operator's `sqlite3 chat.sqlite "VACUUM INTO 'copy.sqlite'"` (or
/// `.backup`) reads a consistent copy while the server writes (WAL readers never block the
/// writer). `flock` locks are apart from the `fcntl` locks SQLite takes, and end with the
/// process: a killed server leaves nothing to clean up.
final class ServerFileLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock on the file at `path`, or `nil` when another holder has it.
    ///
    /// - Throws: `unavailable` when the file cannot be opened.
    init?(path: String) throws(ChatError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw .unavailable(
                "the server's storage '\(path)' cannot be opened: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            _ = close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit {
        _ = flock(descriptor, LOCK_UN)
        _ = close(descriptor)
    }
}
