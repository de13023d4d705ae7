import ChatAPI

/// A channel type in the cache file's row encoding: one byte (``RowCodedEnum``).
extension ChannelType: RowCodedEnum {
    /// The type's fixed code.
    package var rowCode: UInt8 {
        switch self {
        case .standard: 0
        case .private: 1
        case .conversation: 2
        case .broadcast: 3
        case .community: 4
        case .live: 5
        }
    }
}
