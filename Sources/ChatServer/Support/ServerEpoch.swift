/// The identity of a server's history (``ChatAPI/ConnectResult/epoch``): sixteen hex digits of
/// a random positive 63-bit number, drawn when the history starts — at every start of an
/// in-memory server, once when a store is created (kept in it).
enum ServerEpoch {
    /// A new random epoch number (never 0: a store reads 0 as "none yet").
    static func random() -> Int {
        Int.random(in: 1...Int.max)
    }

    /// How an epoch number is told to clients.
    static func text(_ number: Int) -> String {
        let hex = String(UInt64(number), radix: 16)
        return String(repeating: "0", count: max(0, 16 - hex.count)) + hex
    }
}
