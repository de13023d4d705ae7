import Foundation

/// Figures of a run: percentiles of latencies, a process's resident memory.
enum LoadStatistics {
    /// The `p`-th percentile (0…100) of `values` (nearest rank); 0 for none.
    static func percentile(_ p: Double, of values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// Resident memory of process `pid` in bytes (`/proc/PID/statm`), or `nil` where there is none.
    static func residentBytes(of pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// CPU time process `pid` has used, user and system, in seconds (`/proc/PID/stat`), or
    /// `nil` where there is none.
    static func cpuSeconds(of pid: Int32) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    static func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
    static func milliseconds(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1_000) }
    static func rate(_ count: Int, _ seconds: Double) -> String { String(format: "%.0f/s", Double(count) / seconds) }
}
