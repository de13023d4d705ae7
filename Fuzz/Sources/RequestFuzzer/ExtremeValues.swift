import ChatAPI
import ChatServer

/// The values a structured fuzz run draws from: the edges of every kind of number, string and
/// nesting a request can carry, mixed with ordinary ones so that requests also reach the rules
/// behind the input checks (a real channel, a real member).
///
/// Deterministic for a seed: every draw comes from the ``SplitMix64`` it is given.
struct ExtremeValues {
    var random: SplitMix64
    /// The channels of the current batch's scene (made anew for each batch, so that one
    /// deleted or muted early leaves the later batches something to work on): c0 (alice
    /// moderates it), c1, general.
    var channels = ["c0", "c1", "general"]

    /// Durations in seconds: zero, negative, tiny, the documented maxima and one past them, the
    /// threshold past which nanoseconds overflow a `UInt64` (≈1.85e10 s), huge, NaN and ±∞.
    static let durations: [Double] = [
        0, -0.0, -1, -2, 1e-9, 0.5, 1, 60, 3_600, InputLimits.maxRateLimitWindow, InputLimits.maxRateLimitWindow + 1,
        InputLimits.maxPeriod, InputLimits.maxPeriod + 1, 1.85e10, 1.9e10, 99_999_999_999, 1e11, 9_007_199_254_740_992,
        9.3e18, 1e300, .greatestFiniteMagnitude, .leastNonzeroMagnitude, -1e11, .nan, .infinity, -.infinity,
    ]

    /// Counts and sequence numbers.
    static let integers: [Int] = [
        0, -1, 1, 2, 3, 20, 99, 100, 101, 1_000, 1_001, InputLimits.maxRateLimitMessages,
        InputLimits.maxRateLimitMessages + 1, Int(Int32.max), 1 << 53, (1 << 53) + 1, -(1 << 53), .max, .min, .max - 1,
    ]

    /// Strings: empty, white space, control and format characters, very long, many marks on one
    /// character, and the ids the run's scene uses.
    static let strings: [String] = [
        "", " ", "a", "general", "c0", "c1", "c2", "alice", "bob", "carol", "ghost", "message-1", "message-2",
        String(repeating: "x", count: 129), String(repeating: "y", count: 10_001),
        String(repeating: "é", count: 40_001),
        "e" + String(repeating: "\u{301}", count: 40), "a\u{0}b", "\u{202E}evil", "\u{FEFF}", "line\nbreak", "tab\t",
        "\u{1F1EB}\u{1F1F7}", "👩‍👩‍👧‍👦", "$or", "metadata.x", "moderator", "https://example.com/a",
    ]

    /// The ids of the run's scene besides its channels (what most requests name, so that they
    /// reach the rules).
    static let ids = ["c2", "alice", "bob", "carol", "message-1", "message-2", "message-3"]

    mutating func int(_ range: Range<Int>) -> Int { Int(random.next() % UInt64(range.count)) + range.lowerBound }
    mutating func chance(_ percent: Int) -> Bool { int(0..<100) < percent }
    mutating func pick<Element>(_ elements: [Element]) -> Element { elements[int(0..<elements.count)] }

    /// A duration: an edge most of the time, else an ordinary number of seconds.
    mutating func duration() -> Double { chance(80) ? pick(Self.durations) : Double(int(1..<100_000)) }
    /// A count or sequence number.
    mutating func integer() -> Int { chance(80) ? pick(Self.integers) : int(0..<1_000) }
    /// A string.
    mutating func string() -> String { chance(60) ? sceneId() : pick(Self.strings) }
    /// An id: one of the scene's most of the time.
    mutating func id() -> String { chance(85) ? sceneId() : pick(Self.strings) }
    /// A channel of the scene half the time, else another of its ids.
    mutating func sceneId() -> String { chance(50) ? pick(channels) : pick(Self.ids) }
    mutating func ids() -> [String] {
        switch int(0..<10) {
        case 0: []
        case 1: Array(repeating: "bob", count: int(1..<1_200))
        case 2: (0..<int(1..<1_100)).map { "u\($0)" }
        default: (0..<int(1..<4)).map { _ in id() }
        }
    }

    /// A JSON value nested up to `depth` deep, with extreme numbers and strings.
    mutating func json(depth: Int) -> JSON {
        switch int(0..<(depth > 0 ? 7 : 4)) {
        case 0: return .null
        case 1: return .bool(chance(50))
        case 2: return .number(chance(50) ? duration() : Double(integer()))
        case 3: return .string(string())
        case 4: return .array((0..<int(0..<4)).map { _ in json(depth: depth - 1) })
        case 5: return .object(metadata(depth: depth - 1))
        default:
            // A chain as deep as asked, past the documented depth now and then.
            var value = JSON.string("bottom")
            for _ in 0..<depth { value = .array([value]) }
            return value
        }
    }

    /// Metadata: empty, ordinary, deep, or past the size limit.
    mutating func metadata(depth: Int = 40) -> [String: JSON] {
        switch int(0..<8) {
        case 0: return [:]
        case 1: return ["big": .string(String(repeating: "m", count: InputLimits.maxMetadataBytes))]
        default:
            var object: [String: JSON] = [:]
            for _ in 0..<int(0..<4) { object[string()] = json(depth: int(0..<max(1, depth))) }
            return object
        }
    }
}

/// SplitMix64 (Steele, Lea and Flood): a tiny seeded generator whose sequence is the same on
/// every platform, so a seed replays a run.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
