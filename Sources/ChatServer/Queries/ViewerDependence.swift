import ChatAPI

extension ChannelFilterField {
    /// Whether the field is one of the viewing user's (membership, unread, mention).
    var dependsOnViewer: Bool {
        switch self {
        case .joined, .membership, .unreadCount, .hasUnread, .hasMention: true
        default: false
        }
    }
}

extension Filter {
    /// Whether evaluating the filter reads the viewing user's fields of a channel.
    var dependsOnViewer: Bool {
        switch self {
        case .and(let filters), .or(let filters), .nor(let filters): filters.contains(where: \.dependsOnViewer)
        case .condition(let field, _): field.dependsOnViewer
        }
    }
}

extension ChannelListQuery {
    /// Whether the query's filter or sort reads the viewing user's fields: if not, the server
    /// evaluates it on the stored channel values and renders only the page for the viewer.
    var dependsOnViewer: Bool {
        filter.dependsOnViewer
            || sort.contains {
                switch $0.key {
                case .unreadCount, .hasUnread: true
                default: false
                }
            }
    }
}
