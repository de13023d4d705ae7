import Foundation

/// Resident memory of this process, where the system tells it cheaply (Linux's
/// `/proc/self/statm`); `nil` elsewhere. Coarse (whole pages), so measure many allocations at
/// once and divide.
enum MemoryProbe {
    static func allocatedBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * 4096
    }
}
