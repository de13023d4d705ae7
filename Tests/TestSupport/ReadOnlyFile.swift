import Foundation

/// Makes a file read-only for this process: `chmod 0444`, and for root (whom permissions do not
/// stop) the immutable attribute (`chattr +i`) where the file system and the process allow it.
public enum ReadOnlyFile {
    /// Whether the file is now read-only for this process.
    public static func protect(_ url: URL) -> Bool {
        try? FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
        if isWritable(url) { run("chattr", "+i", url.path) }
        return !isWritable(url)
    }

    public static func release(_ url: URL) {
        run("chattr", "-i", url.path)
        try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path)
    }

    private static func isWritable(_ url: URL) -> Bool {
        guard let handle = FileHandle(forWritingAtPath: url.path) else { return false }
        try? handle.close()
        return true
    }

    private static func run(_ arguments: String...) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return }
        process.waitUntilExit()
    }
}
