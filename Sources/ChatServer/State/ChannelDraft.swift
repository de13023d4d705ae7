import ChatAPI

/// What a create-channel call asks for, before validation.
struct ChannelDraft: Sendable, Hashable {
    var type: ChannelType
    /// `nil`: generate a unique id.
    var channelId: String?
    var displayName: String?
    /// Initial members besides the creator.
    var userIds: [String] = []
    var tags: [String] = []
    var metadata: [String: JSON] = [:]
    var avatarFileId: String?
}

/// What an update-channel call changes. A `nil` field is left as it is; for the optional
/// channel fields, `.some(nil)` clears the value.
struct ChannelChanges: Sendable, Hashable {
    var displayName: String??
    var metadata: [String: JSON]?
    var tags: [String]?
    var avatarFileId: String??
}
