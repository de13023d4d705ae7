import Foundation

/// Timing helpers for the benchmarks: every figure is a median of several runs, and every
/// figure is printed next to a baseline measured in the same run.
enum Harness {
    /// Runs `body` `runs` times (after one warm-up run) and returns the median duration in
    /// seconds.
    static func median(runs: Int = 5, warmUp: Bool = true, _ body: () -> Void) -> Double {
        if warmUp { body() }
        var samples: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<runs {
            let elapsed = clock.measure(body)
            samples.append(seconds(elapsed))
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    /// Times one run of `body`, in seconds.
    static func once(_ body: () -> Void) -> Double {
        seconds(ContinuousClock().measure(body))
    }

    /// Times one run of an async `body`, in seconds.
    static func once(_ body: () async throws -> Void) async rethrows -> Double {
        let start = ContinuousClock.now
        try await body()
        return seconds(ContinuousClock.now - start)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A duration formatted with a unit that keeps 3 significant digits.
    static func format(_ seconds: Double) -> String {
        switch seconds {
        case ..<1e-6: String(format: "%.1f ns", seconds * 1e9)
        case ..<1e-3: String(format: "%.2f µs", seconds * 1e6)
        case ..<1: String(format: "%.2f ms", seconds * 1e3)
        default: String(format: "%.2f s", seconds)
        }
    }

    /// A ratio formatted as `12.3×`.
    static func ratio(_ value: Double) -> String {
        value >= 100 ? String(format: "%.0f×", value) : String(format: "%.1f×", value)
    }

    /// Prints a Markdown table.
    static func table(_ header: [String], _ rows: [[String]]) {
        print("| " + header.joined(separator: " | ") + " |")
        print("|" + header.map { _ in "---" }.joined(separator: "|") + "|")
        for row in rows { print("| " + row.joined(separator: " | ") + " |") }
    }
}

/// Keeps a value alive and observable so the optimizer cannot delete the work that made it.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}
