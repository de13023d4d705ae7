/// Why a row of the cache file could not be encoded or decoded (``RowWriter``, ``RowReader``).
///
/// A decoding error means the bytes are not a row this build wrote (truncated, damaged, of
/// another kind or another format); ``CacheStore`` treats it as a damaged file.
package enum RowCodingError: Error, Sendable, Equatable {
    /// The row ends before the value does.
    case truncated
    /// The bytes cannot be a value of the kind read: an unknown tag or code, a count past the
    /// end, invalid UTF-8, bytes left over. The reason names what was wrong.
    case invalid(String)
    /// A `JSON` value nested deeper than `JSON.maximumDecodingDepth`: refused, so that neither
    /// encoding nor decoding recurses without bound.
    case tooDeep
}
