import Foundation

extension Filter {
    /// Whether `channel` satisfies the filter, as seen by the user whose view the `Channel` value
    /// carries (`joined`, `membership`, `unreadCount`, `hasUnread`, `hasMention` read its viewer
    /// fields).
    ///
    /// `isMember(userId)` answers conditions on `members` (`containMembers`,
    /// `.equal(.members, …)`, `.in(.members, …)`, …) for this channel; it is called only for the
    /// user ids such a condition names, so a hashed member set or index makes evaluation
    /// O(size of the filter). Filters that do not mention `members` never call it (see
    /// `usesMembers`).
    ///
    /// A pure function of its inputs: the server answers queries and the client maintains live
    /// lists with it, so the two agree. An invalid filter (see `validate()`) still evaluates
    /// without trapping, but its result is unspecified; validate first.
    ///
    /// - Complexity: O(size of the filter), plus O(length) per `autocomplete` and metadata path.
    public func matches(_ channel: Channel, isMember: (_ userId: String) -> Bool) -> Bool {
        switch self {
        case .and(let filters): filters.allSatisfy { $0.matches(channel, isMember: isMember) }
        case .or(let filters): filters.contains { $0.matches(channel, isMember: isMember) }
        case .nor(let filters): !filters.contains { $0.matches(channel, isMember: isMember) }
        case .condition(.members, let op): op.matchesMembers(isMember)
        case .condition(let field, let op): op.matches(field.value(of: channel))
        }
    }

    /// `matches(_:isMember:)` with the channel's full member set.
    public func matches(_ channel: Channel, memberIds: Set<String>) -> Bool {
        matches(channel, isMember: memberIds.contains)
    }

    /// `matches(_:isMember:)` for a client that knows only its own membership: the viewer
    /// `viewerId` is a member iff `channel.currentUserMembership == .member`; every other user
    /// counts as a non-member. Exact for filters whose `members` conditions name only the viewer
    /// (such as `.containMembers(userIds: [currentUserId])`).
    public func matches(_ channel: Channel, viewerId: String) -> Bool {
        matches(channel) { $0 == viewerId && channel.currentUserMembership == .member }
    }

    /// Whether any condition tests `members`, i.e. whether evaluation needs member sets.
    public var usesMembers: Bool {
        switch self {
        case .and(let filters), .or(let filters), .nor(let filters):
            filters.contains(where: \.usesMembers)
        case .condition(let field, _): field == .members
        }
    }
}

extension ChannelFilterField {
    /// The field's value in `channel` as JSON, `nil` when missing (and for `members`, which the
    /// channel value does not carry). Dates are seconds since 1970.
    func value(of channel: Channel) -> JSON? {
        switch self {
        case .channelId: .string(channel.channelId)
        case .type: .string(channel.type.rawValue)
        case .displayName: channel.displayName.map(JSON.string)
        case .tags: .array(channel.tags.map(JSON.string))
        case .memberCount: .number(Double(channel.memberCount))
        case .messageCount: .number(Double(channel.messageCount))
        case .createdAt: channel.createdAt.filterJSON
        case .updatedAt: channel.updatedAt.filterJSON
        case .lastActivity: channel.lastActivity.filterJSON
        case .lastMessageAt: channel.lastMessageAt?.filterJSON
        case .isDeleted: .bool(channel.isDeleted)
        case .isMuted: .bool(channel.isMuted)
        case .isDistinct: .bool(channel.isDistinct)
        case .creator: channel.creatorId.map(JSON.string)
        case .members: nil
        case .joined: .bool(channel.currentUserMembership == .member)
        case .membership: .string(channel.currentUserMembership.rawValue)
        case .unreadCount: .number(Double(channel.unreadCount))
        case .hasUnread: .bool(channel.unreadCount > 0)
        case .hasMention: .bool(channel.hasMention)
        case .metadata(let path): JSON.object(channel.metadata)[path: path]
        }
    }
}

extension FilterOperator {
    /// Whether the operator holds for a field `value` (`nil`: missing), with MongoDB's
    /// missing-field and array-field semantics (see `Filter`).
    func matches(_ value: JSON?) -> Bool {
        switch self {
        case .equal(let operand): Self.equals(value, operand)
        case .notEqual(let operand): !Self.equals(value, operand)
        case .in(let operands): operands.contains { Self.equals(value, $0) }
        case .notIn(let operands): !operands.contains { Self.equals(value, $0) }
        case .greater(let operand): Self.compares(value, operand, [.orderedDescending])
        case .greaterOrEqual(let operand):
            Self.compares(value, operand, [.orderedDescending, .orderedSame])
        case .less(let operand): Self.compares(value, operand, [.orderedAscending])
        case .lessOrEqual(let operand):
            Self.compares(value, operand, [.orderedAscending, .orderedSame])
        case .exists(let present): (value != nil) == present
        case .contains(let operand): value?.arrayValue?.contains(operand) ?? false
        case .containsAll(let operands):
            value?.arrayValue.map { array in operands.allSatisfy(array.contains) } ?? false
        case .autocomplete(let text):
            Self.anyElement(of: value) { [prefix = TextMatching.fold(text)] element in
                element.stringValue.map { TextMatching.hasWordPrefix(TextMatching.fold($0), prefix) }
                    ?? false
            }
        }
    }

    /// The operator on the `members` field, asking `isMember` for the user ids it names.
    func matchesMembers(_ isMember: (String) -> Bool) -> Bool {
        func member(_ operand: JSON) -> Bool { operand.stringValue.map(isMember) ?? false }
        return switch self {
        case .equal(let operand), .contains(let operand): member(operand)
        case .notEqual(let operand): !member(operand)
        case .in(let operands): operands.contains(where: member)
        case .notIn(let operands): !operands.contains(where: member)
        case .containsAll(let operands): operands.allSatisfy(member)
        case .exists(let present): present
        case .greater, .greaterOrEqual, .less, .lessOrEqual, .autocomplete: false
        }
    }

    /// MongoDB equality: a missing field equals `null`; an array equals the operand when it is
    /// equal as a whole or has an equal element.
    private static func equals(_ value: JSON?, _ operand: JSON) -> Bool {
        guard let value else { return operand == .null }
        if value == operand { return true }
        return value.arrayValue?.contains(operand) ?? false
    }

    /// `test` on the value, or on any element when the value is an array; `false` when missing.
    private static func anyElement(of value: JSON?, _ test: (JSON) -> Bool) -> Bool {
        guard let value else { return false }
        if let array = value.arrayValue { return array.contains(where: test) }
        return test(value)
    }

    /// Whether the value (or, for an array, any element) compares to `operand` as one of
    /// `accepted`; values of another type than the operand never do.
    private static func compares(
        _ value: JSON?, _ operand: JSON, _ accepted: [ComparisonResult]
    ) -> Bool {
        anyElement(of: value) { order($0, operand).map(accepted.contains) ?? false }
    }

    /// The order of two values of the same comparable type (numbers or strings), else `nil`.
    private static func order(_ a: JSON, _ b: JSON) -> ComparisonResult? {
        switch (a, b) {
        case (.number(let x), .number(let y)):
            x < y ? .orderedAscending : (x > y ? .orderedDescending : (x == y ? .orderedSame : nil))
        case (.string(let x), .string(let y)):
            x < y ? .orderedAscending : (x == y ? .orderedSame : .orderedDescending)
        default: nil
        }
    }
}
