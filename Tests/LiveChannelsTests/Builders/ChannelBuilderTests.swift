import ChatAPI
import LiveChannels
import Testing

@Suite struct ChannelBuilderTests {
    @Test func communityDraftCarriesEveryField() throws {
        let builder = CommunityChannelBuilder()
        builder.setId("my-id")
        builder.setUserIds(["bob", "carol"])
        builder.setDisplayName("Ops")
        builder.setTags(["ch-comm", "ios-sdk"])
        builder.setMetadata(["sdk_type": "ios", "score": 3])
        builder.setAvatar(fileId: "file-1")

        #expect(
            try builder.makeDraft()
                == ChannelDraft(
                    type: .community, channelId: "my-id", userIds: ["bob", "carol"],
                    displayName: "Ops", avatarFileId: "file-1", tags: ["ch-comm", "ios-sdk"],
                    metadata: ["sdk_type": "ios", "score": 3]))
        #expect(builder.channelType == .community)
        #expect(builder.channelId == "my-id")
        #expect(builder.avatarFileId == "file-1")
    }

    @Test func liveDraftNeedsNothingButItsType() throws {
        let builder = LiveChannelBuilder()
        #expect(builder.channelType == .live)
        #expect(try builder.makeDraft() == ChannelDraft(type: .live))
        #expect(try builder.makeDraft().channelId == nil)
    }

    @Test func conversationDraftDeduplicatesUserIdsInOrder() throws {
        let builder = ConversationChannelBuilder()
        builder.setUserIds(["carol", "bob", "carol", "bob"])
        builder.setDisplayName("DM")
        let draft = try builder.makeDraft()
        #expect(draft.type == .conversation)
        #expect(draft.userIds == ["carol", "bob"])
        #expect(draft.displayName == "DM")
        #expect(builder.userIds == ["carol", "bob", "carol", "bob"])
    }

    @Test func settersReplaceEarlierValues() throws {
        let builder = CommunityChannelBuilder()
        builder.setId("first")
        builder.setId("second")
        builder.setTags(["a"])
        builder.setTags([])
        builder.setMetadata(["a": 1])
        builder.setMetadata(["b": 2])
        let draft = try builder.makeDraft()
        #expect(draft.channelId == "second")
        #expect(draft.tags == [])
        #expect(draft.metadata == ["b": 2])
    }

    @Test func makeDraftIsRepeatableAndFixesTheType() throws {
        let builders: [any ChannelBuilder] = [
            CommunityChannelBuilder(), LiveChannelBuilder(), conversation(with: ["bob"]),
        ]
        #expect(builders.map(\.channelType) == [.community, .live, .conversation])
        for builder in builders {
            let first = try builder.makeDraft()
            #expect(first.type == builder.channelType)
            #expect(try builder.makeDraft() == first)
        }
    }

    @Test func limitsAreInclusive() throws {
        let builder = CommunityChannelBuilder()
        builder.setId(String(repeating: "i", count: 128))
        builder.setUserIds([String(repeating: "u", count: 128)])
        builder.setDisplayName(String(repeating: "n", count: 256))
        builder.setTags(Array(repeating: String(repeating: "t", count: 64), count: 20))
        builder.setAvatar(fileId: String(repeating: "f", count: 128))
        // {"k":"…"} is the value's length plus 8 bytes.
        builder.setMetadata(["k": .string(String(repeating: "x", count: 100 * 1024 - 8))])
        #expect(JSON.object(builder.metadata).encodedSize == 100 * 1024)
        #expect(try builder.makeDraft().channelId?.count == 128)
    }

    @Test func oversizedMetadataIsALimitError() {
        let builder = LiveChannelBuilder()
        builder.setMetadata(["k": .string(String(repeating: "x", count: 100 * 1024 - 7))])
        #expect(JSON.object(builder.metadata).encodedSize == 100 * 1024 + 1)
        #expect {
            try builder.makeDraft()
        } throws: { error in
            guard case .limitExceeded(let message) = error as? ChatError else { return false }
            return message.contains("metadata") && message.contains("102401")
        }
    }

    @Test(arguments: InvalidDraftCase.all)
    func invalidDraftNamesTheField(_ row: InvalidDraftCase) {
        let builder = row.make()
        row.configure(builder)
        #expect {
            try builder.makeDraft()
        } throws: { error in
            guard case .invalidArgument(let field, let reason) = error as? ChatError else {
                return false
            }
            return field == row.field && !reason.isEmpty
        }
    }

    @Test func errorsDescribeTheFix() {
        let builder = ConversationChannelBuilder()
        #expect(throws: ChatError.self) { try builder.makeDraft() }
        do {
            _ = try builder.makeDraft()
        } catch {
            #expect(error.description.hasPrefix("Invalid argument 'userIds'"))
            #expect(error.description.contains("at least one other user"))
        }
    }

    private func conversation(with userIds: [String]) -> ConversationChannelBuilder {
        let builder = ConversationChannelBuilder()
        builder.setUserIds(userIds)
        return builder
    }
}

/// A builder of `type` set up with one bad field, and the field `makeDraft()` must name.
struct InvalidDraftCase: Sendable, CustomTestStringConvertible {
    let label: String
    let field: String
    let type: ChannelType
    let configure: @Sendable (ChannelCreationBuilder) -> Void

    var testDescription: String { label }

    init(
        _ label: String, _ field: String, _ type: ChannelType = .community,
        _ configure: @escaping @Sendable (ChannelCreationBuilder) -> Void
    ) {
        self.label = label
        self.field = field
        self.type = type
        self.configure = configure
    }

    /// A fresh builder of `type`.
    func make() -> ChannelCreationBuilder {
        switch type {
        case .live: LiveChannelBuilder()
        case .conversation: ConversationChannelBuilder()
        default: CommunityChannelBuilder()
        }
    }

    static let all: [InvalidDraftCase] = [
        .init("empty id", "channelId") { $0.setId("") },
        .init("blank id", "channelId") { $0.setId(" \t ") },
        .init("id with a control character", "channelId") { $0.setId("a\u{7}b") },
        .init("id with a newline", "channelId") { $0.setId("a\nb") },
        .init("id of 129 characters", "channelId") { $0.setId(String(repeating: "i", count: 129)) },
        .init("conversation without user ids", "userIds", .conversation) { _ in },
        .init("conversation with an empty user ids list", "userIds", .conversation) {
            $0.setUserIds([])
        },
        .init("empty user id", "userIds") { $0.setUserIds(["bob", ""]) },
        .init("only empty user ids in a conversation", "userIds", .conversation) {
            $0.setUserIds(["", ""])
        },
        .init("blank user id", "userIds", .live) { $0.setUserIds(["  "]) },
        .init("user id too long", "userIds") {
            $0.setUserIds([String(repeating: "u", count: 129)])
        },
        .init("too many user ids", "userIds") { $0.setUserIds((0...1_000).map { "u\($0)" }) },
        .init("display name too long", "displayName") {
            $0.setDisplayName(String(repeating: "n", count: 257))
        },
        .init("display name with a control character", "displayName") {
            $0.setDisplayName("Ops\u{0}")
        },
        .init("blank avatar file id", "avatarFileId") { $0.setAvatar(fileId: "") },
        .init("empty tag", "tags") { $0.setTags(["ok", ""]) },
        .init("blank tag", "tags", .live) { $0.setTags([" "]) },
        .init("tag too long", "tags") { $0.setTags([String(repeating: "t", count: 65)]) },
        .init("tag with a control character", "tags") { $0.setTags(["a\u{1b}"]) },
        .init("21 tags", "tags") { $0.setTags((0...20).map { "t\($0)" }) },
        .init("non-finite number in metadata", "metadata") {
            $0.setMetadata(["nested": ["score": .number(.infinity)]])
        },
        .init("NaN in a metadata array", "metadata") {
            $0.setMetadata(["list": [1, .number(.nan)]])
        },
    ]
}
