import ChatAPI
import Foundation
import LiveChannels
import Testing

@Suite struct ChannelQueryBuilderTests {
    @Test func byTypesQueryIsTheDocumentedConjunction() {
        let builder = ByTypesChannelQueryBuilder(
            types: [.private, .standard], channelQueryFilter: .userIsMember,
            includingTags: ["b", "a", "b"], excludingTags: ["c"], includeDeleted: false)
        let query = builder.query
        #expect(
            query.filter
                == .and([
                    .in(.type, values: [.standard, .private]), .equal(.joined, to: true),
                    .in(.tags, values: ["a", "b"]), .notIn(.tags, values: ["c"]),
                    .equal(.isDeleted, to: false),
                ]))
        #expect(query.sort == [.default])
        #expect(query.pageSize == 20)
    }

    @Test func unconstrainedPartsAreLeftOut() {
        let seedForm = ConversationChannelQueryBuilder(includingTags: nil, excludingTags: nil)
        #expect(
            seedForm.query.filter
                == .and([.in(.type, values: [.conversation]), .equal(.isDeleted, to: false)]))
        let emptyTags = ConversationChannelQueryBuilder(includingTags: [], excludingTags: [])
        #expect(emptyTags.query == seedForm.query)
        let withDeleted = LiveChannelQueryBuilder(
            includingTags: nil, excludingTags: nil, includeDeleted: true)
        #expect(withDeleted.query.filter == .and([.in(.type, values: [.live])]))
        #expect(
            ByTypesChannelQueryBuilder(types: [.community], channelQueryFilter: .userIsNotMember)
                .query.filter
                == .and([
                    .in(.type, values: [.community]), .equal(.joined, to: false),
                    .equal(.isDeleted, to: false),
                ]))
    }

    @Test func equivalentBuildersGiveEqualQueries() {
        var types = Set<ChannelType>()
        for type in ChannelType.allCases.reversed() { types.insert(type) }
        let a = ByTypesChannelQueryBuilder(
            types: types, includingTags: ["x", "y"], excludingTags: ["z", "z"])
        let b = ByTypesChannelQueryBuilder(
            types: Set(ChannelType.allCases), includingTags: ["y", "x", "x"], excludingTags: ["z"])
        #expect(a.query == b.query)
        #expect(a.query.hashValue == b.query.hashValue)
    }

    @Test func singleTypeBuildersAreByTypesQueries() {
        let tags = (including: ["a"] as [String]?, excluding: ["b"] as [String]?)
        func byTypes(_ type: ChannelType, _ filter: ChannelQueryFilter = .all) -> ChannelListQuery {
            ByTypesChannelQueryBuilder(
                types: [type], channelQueryFilter: filter, includingTags: tags.including,
                excludingTags: tags.excluding, includeDeleted: true
            ).query
        }
        let pairs: [(any ChannelQueryBuilder, ChannelListQuery)] = [
            (
                StandardChannelQueryBuilder(
                    channelQueryFilter: .userIsMember, includingTags: tags.including,
                    excludingTags: tags.excluding, includeDeleted: true),
                byTypes(.standard, .userIsMember)
            ),
            (
                PrivateChannelQueryBuilder(
                    includingTags: tags.including, excludingTags: tags.excluding,
                    includeDeleted: true),
                byTypes(.private)
            ),
            (
                BroadcastChannelQueryBuilder(
                    channelQueryFilter: .userIsNotMember, includingTags: tags.including,
                    excludingTags: tags.excluding, includeDeleted: true),
                byTypes(.broadcast, .userIsNotMember)
            ),
            (
                ConversationChannelQueryBuilder(
                    includingTags: tags.including, excludingTags: tags.excluding,
                    includeDeleted: true),
                byTypes(.conversation)
            ),
            (
                LiveChannelQueryBuilder(
                    includingTags: tags.including, excludingTags: tags.excluding,
                    includeDeleted: true),
                byTypes(.live)
            ),
            (
                CommunityChannelQueryBuilder(
                    filter: .userIsMember, includingTags: tags.including,
                    excludingTags: tags.excluding, includeDeleted: true),
                byTypes(.community, .userIsMember)
            ),
        ]
        for (builder, expected) in pairs {
            #expect(builder.query == expected)
        }
        #expect(
            CommunityChannelQueryBuilder(filter: .userIsMember).byTypes
                == ByTypesChannelQueryBuilder(
                    types: [.community], channelQueryFilter: .userIsMember))
    }

    /// Every single-type builder, with no argument and with every argument, is the by-types
    /// builder of its type with the same parameters (the by-types defaults: every membership,
    /// no tag constraint, deleted channels left out, default sort, pages of 20).
    @Test func singleTypeBuildersKeepDefaultsAndEveryParameter() {
        let defaults: [(ByTypesChannelQueryBuilder, ChannelType)] = [
            (StandardChannelQueryBuilder().byTypes, .standard),
            (PrivateChannelQueryBuilder().byTypes, .private),
            (BroadcastChannelQueryBuilder().byTypes, .broadcast),
            (ConversationChannelQueryBuilder().byTypes, .conversation),
            (LiveChannelQueryBuilder().byTypes, .live),
            (CommunityChannelQueryBuilder().byTypes, .community),
        ]
        for (builder, type) in defaults {
            #expect(builder == ByTypesChannelQueryBuilder(types: [type]), "\(type)")
            #expect(builder.channelQueryFilter == .all && builder.includingTags == nil && builder.excludingTags == nil)
            #expect(!builder.includeDeleted && builder.sortBy == [.default] && builder.pageSize == 20)
        }

        let sort = [Sorting(key: .createdAt, isAscending: true)]
        func expected(_ type: ChannelType, _ filter: ChannelQueryFilter = .all) -> ByTypesChannelQueryBuilder {
            ByTypesChannelQueryBuilder(
                types: [type], channelQueryFilter: filter, includingTags: ["in"], excludingTags: ["out"],
                includeDeleted: true, sortBy: sort, pageSize: 7)
        }
        let everyArgument: [(ByTypesChannelQueryBuilder, ByTypesChannelQueryBuilder)] = [
            (
                StandardChannelQueryBuilder(
                    channelQueryFilter: .userIsMember, includingTags: ["in"], excludingTags: ["out"],
                    includeDeleted: true, sortBy: sort, pageSize: 7
                ).byTypes,
                expected(.standard, .userIsMember)
            ),
            (
                PrivateChannelQueryBuilder(
                    includingTags: ["in"], excludingTags: ["out"], includeDeleted: true, sortBy: sort, pageSize: 7
                ).byTypes,
                expected(.private)
            ),
            (
                BroadcastChannelQueryBuilder(
                    channelQueryFilter: .userIsNotMember, includingTags: ["in"], excludingTags: ["out"],
                    includeDeleted: true, sortBy: sort, pageSize: 7
                ).byTypes,
                expected(.broadcast, .userIsNotMember)
            ),
            (
                ConversationChannelQueryBuilder(
                    includingTags: ["in"], excludingTags: ["out"], includeDeleted: true, sortBy: sort, pageSize: 7
                ).byTypes,
                expected(.conversation)
            ),
            (
                LiveChannelQueryBuilder(
                    includingTags: ["in"], excludingTags: ["out"], includeDeleted: true, sortBy: sort, pageSize: 7
                ).byTypes,
                expected(.live)
            ),
            (
                CommunityChannelQueryBuilder(
                    filter: .userIsMember, includingTags: ["in"], excludingTags: ["out"], includeDeleted: true,
                    sortBy: sort, pageSize: 7
                ).byTypes,
                expected(.community, .userIsMember)
            ),
        ]
        for (builder, expected) in everyArgument {
            #expect(builder == expected)
            #expect(builder.query == expected.query)
        }
        #expect(
            CommunityChannelQueryBuilder(filter: .userIsMember) == CommunityChannelQueryBuilder(filter: .userIsMember))
        #expect(
            CommunityChannelQueryBuilder(filter: .userIsMember).hashValue
                == CommunityChannelQueryBuilder(filter: .userIsMember).hashValue)
        #expect(StandardChannelQueryBuilder(pageSize: 7) != StandardChannelQueryBuilder())
    }

    @Test func sortAndPageSizePassThrough() throws {
        let sort = [Sorting(key: .memberCount), Sorting(key: .createdAt, isAscending: true)]
        let query = StandardChannelQueryBuilder(sortBy: sort, pageSize: 50).query
        #expect(query.sort == sort)
        #expect(query.pageSize == 50)
        try query.validate()
        #expect {
            try PrivateChannelQueryBuilder(pageSize: 0).query.validate()
        } throws: { error in
            guard case .invalidArgument(let field, _) = error as? ChatError else { return false }
            return field == "pageSize"
        }
    }

    @Test func queriesSurviveTheWire() throws {
        let queries =
            ChannelQueryTable.cases.map(\.query) + [
                ByTypesChannelQueryBuilder(types: Set<ChannelType>()).query
            ]
        for query in queries {
            let data = try JSONEncoder().encode(query)
            #expect(try JSONDecoder().decode(ChannelListQuery.self, from: data) == query)
        }
    }

    @Test func emptyTypesMatchNothingAndValidate() throws {
        let query = ByTypesChannelQueryBuilder(types: Set<ChannelType>(), includeDeleted: true)
            .query
        try query.validate()
        #expect(ChannelQueryTable.matching(query).isEmpty)
        let fromNames = try ByTypesChannelQueryBuilder(types: Set<String>(), includeDeleted: true)
        #expect(fromNames.query == query)
    }

    @Test func typeNamesMapToChannelTypes() throws {
        let builderSet: Set<String> = Set(arrayLiteral: "standard", "private")
        let channelFilter: ChannelQueryFilter = .all
        let includingTags: [String]? = ["a"]
        let excludingTags: [String]? = nil
        let builder = try ByTypesChannelQueryBuilder(
            types: builderSet, channelQueryFilter: channelFilter, includingTags: includingTags,
            excludingTags: excludingTags)
        #expect(builder.types == [.standard, .private])
        #expect(
            builder
                == ByTypesChannelQueryBuilder(
                    types: [.standard, .private], channelQueryFilter: channelFilter,
                    includingTags: includingTags, excludingTags: excludingTags))
        let everyName = Set(ChannelType.allCases.map(\.rawValue))
        #expect(try ByTypesChannelQueryBuilder(types: everyName).types == Set(ChannelType.allCases))
    }

    @Test(arguments: [["Standard"], ["standard", "group"], [""], [" live"]])
    func unknownTypeNamesThrow(_ names: [String]) {
        #expect {
            _ = try ByTypesChannelQueryBuilder(types: Set(names))
        } throws: { error in
            guard case .invalidArgument(let field, let reason) = error as? ChatError else {
                return false
            }
            return field == "types" && reason.contains("unknown channel type")
        }
    }

    @Test(arguments: ChannelQueryTable.cases)
    func matchesTheExpectedChannels(_ row: ChannelQueryCase) throws {
        try row.query.validate()
        #expect(ChannelQueryTable.matching(row.query) == row.expected)
    }
}
