import ChatAPI
import Foundation

/// The documented limits on what clients (and the console) may send. Input outside them is
/// rejected with `ChatError.invalidArgument(field:reason:)` naming the field, or
/// `ChatError.limitExceeded` for size limits, before anything changes.
public enum InputLimits {
    /// Ids (users, channels, devices, messages): 1 to 128 characters, no control characters.
    public static let maxIdLength = 128
    /// Display names: at most 256 characters, no control characters.
    public static let maxDisplayNameLength = 256
    /// Tags: at most 20 per channel, each 1 to 64 characters, no control characters.
    public static let maxTagCount = 20
    /// See ``maxTagCount``.
    public static let maxTagLength = 64
    /// Role names: 1 to 64 characters, no control characters.
    public static let maxRoleLength = 64
    /// Metadata: a JSON object of at most 100 KB (102,400 bytes), measured encoded.
    public static let maxMetadataBytes = 100 * 1024
    /// Members per channel.
    public static let maxMembers = 300_000
    /// User ids named in one request (create, add, remove, ban, mute, roles, mentions).
    public static let maxUserIdsPerRequest = 1_000
    /// Message text: at most 10,000 characters (newlines and tabs allowed).
    public static let maxMessageLength = 10_000
    /// Page size of every query: 1 to 100.
    public static let maxPageSize = 100
}
