import ChatAPI

/// The documented limits on what clients (and the console) may send. Input outside them is
/// rejected with `ChatError.invalidArgument(field:reason:)` naming the field, or
/// `ChatError.limitExceeded` for the metadata size, before anything changes. One cause gives
/// one error case on every path (creating and updating alike).
///
/// Text limits count both characters (grapheme clusters, what a reader sees) and UTF-8 bytes
/// (what is stored), and no character may carry more than ``maxScalarsPerCharacter`` Unicode
/// scalars: one visible character with 100,000 combining marks is refused.
public enum InputLimits {
    /// Ids (users, channels, devices, messages, avatar files): 1 to 128 characters and at most
    /// 512 UTF-8 bytes; no white space at either end; no control, format (bidi overrides and
    /// isolates, zero-width characters, byte-order mark) or separator characters; Unicode NFC.
    /// Ids are refused, never rewritten (see `IdentifierRules`).
    public static let maxIdLength = IdentifierRules.maximumLength
    /// See ``maxIdLength``.
    public static let maxIdBytes = IdentifierRules.maximumBytes
    /// Display names: at most 256 characters and 1,024 UTF-8 bytes, no control characters.
    public static let maxDisplayNameLength = 256
    /// See ``maxDisplayNameLength``.
    public static let maxDisplayNameBytes = 1_024
    /// Tags: at most 20 per channel, each 1 to 64 characters (256 UTF-8 bytes), no control
    /// characters.
    public static let maxTagCount = 20
    /// See ``maxTagCount``.
    public static let maxTagLength = 64
    /// Role names: 1 to 64 characters (256 UTF-8 bytes), no control characters.
    public static let maxRoleLength = 64
    /// Metadata (channels, messages, users): a JSON object of at most 100 KB (102,400 bytes),
    /// measured encoded (`limitExceeded` beyond), nested at most ``maxJSONDepth`` deep and with
    /// finite numbers only (`invalidArgument` otherwise).
    public static let maxMetadataBytes = JSON.maximumMetadataBytes
    /// The deepest nesting of arrays and objects in metadata and filter operands: 32. Checked
    /// without recursion, before the value is measured, stored or evaluated.
    public static let maxJSONDepth = JSON.maximumDepth
    /// The deepest nesting of `and`/`or`/`nor` in a channel filter: 32 (field `"filter"`).
    public static let maxFilterDepth = Filter.maximumDepth
    /// Members per channel.
    public static let maxMembers = 300_000
    /// User ids named in one request (create, add, remove, ban, mute, roles, mentions).
    public static let maxUserIdsPerRequest = 1_000
    /// Message text: at most 10,000 characters (newlines and tabs allowed) and 40,000 UTF-8
    /// bytes — four bytes a character, so any text of single-scalar characters within the
    /// character limit fits.
    public static let maxMessageLength = 10_000
    /// See ``maxMessageLength``.
    public static let maxMessageBytes = 40_000
    /// The most Unicode scalars one character (grapheme cluster) of any text may have: 32.
    /// The longest emoji sequences have about 10, real diacritic stacks fewer, and Unicode's
    /// stream-safe text format (UAX #15) allows at most 30 combining marks in a row.
    public static let maxScalarsPerCharacter = 32
    /// Page size of every query: 1 to 100.
    public static let maxPageSize = 100

    // MARK: Numbers

    /// The longest period, in seconds, of a mute (of a channel or of members) and of a rate
    /// limit: ten years of 365 days (315,360,000 s). `-1` means "until lifted"; a longer, zero,
    /// negative (but -1), NaN or infinite period is `invalidArgument(field: "period")`.
    public static let maxPeriod: Double = 315_360_000
    /// The longest window of a rate limit, in seconds: one day (86,400 s); the window must be
    /// positive (`invalidArgument(field: "window")`).
    public static let maxRateLimitWindow: Double = 86_400
    /// The most messages a rate limit may allow per window: 1 to 10,000
    /// (`invalidArgument(field: "limit")`).
    public static let maxRateLimitMessages = 10_000
    /// The highest sequence number a request may name (a message page's position, `hello`'s
    /// `resumeAfter`): 2^53, the largest integer every JSON reader keeps exactly. Numbers are
    /// at least 0 (`invalidArgument(field: "sequence")`, `"resumeAfter"`).
    public static let maxSequence = MessagePageQuery.maximumSequence
}
