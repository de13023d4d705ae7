import ChatAPI

/// A membership in the cache file's row encoding: one byte (``RowCodedEnum``).
extension Membership: RowCodedEnum {
    /// The membership's fixed code.
    package var rowCode: UInt8 {
        switch self {
        case .none: 0
        case .member: 1
        case .banned: 2
        }
    }
}
