import ChatAPI

extension ServerAction {
    /// The action a `Permission` asks about.
    init(_ permission: Permission) {
        self =
            switch permission {
            case .editChannel: .editChannel
            case .deleteChannel: .deleteChannel
            case .sendMessage: .sendMessage
            case .editAnyMessage: .editAnyMessage
            case .deleteAnyMessage: .deleteAnyMessage
            case .addMember: .addMember
            case .removeMember: .removeMember
            case .banMember: .banMember
            case .muteMember: .muteMember
            case .manageRoles: .manageRoles
            case .muteChannel: .muteChannel
            case .manageRateLimit: .manageRateLimit
            }
    }
}
