import ChatAPI
import Foundation
import LiveCore
import TestSupport
import Testing

@testable import LiveChannels

/// The one live-list state machine, without a server: events place one entity at a time, pages
/// are the server's word as of their revision, and every change it returns leads exactly from
/// the previous items to the new ones. Every step checks the state's invariants.
@Suite struct LiveQueryStateTests {
    static let me = QueryContext(viewerId: "me", isAdmin: false)

    /// Applies a page, checking the returned change against the items before and after. Pages
    /// are read at revision 0 unless a test says otherwise, and the fixtures' values have version
    /// 0: the events ``apply(_:to:)`` stamps come after every such page, as real events do.
    @discardableResult
    static func applyPage<Spec: LiveQuerySpec>(
        _ items: [Spec.Entity], hasMore: Bool, revision: Int = 0, cache: [String: Spec.Entity] = [:],
        to state: inout LiveQueryState<Spec>
    ) -> CollectionChange? {
        let before = state.items
        _ = state.beginPageLoad()
        let change = state.applyPage(
            QueryPage(items: items, hasMore: hasMore), revision: revision,
            newestCachedVersion: cache.values.map(\.version).max() ?? 0, current: { cache[$0] },
            newer: { cache.values.filter { $0.version > revision } })
        check(change, from: before, to: state.items)
        state.checkInvariants()
        return change
    }

    /// Applies an event, checking the returned change. An event of version 0 (the fixtures')
    /// is stamped version 1, newer than the pages read at the default revision 0: a real event
    /// the client applies after a page is one the server wrote after reading it.
    @discardableResult
    static func apply<Spec: LiveQuerySpec>(_ entity: Spec.Entity, to state: inout LiveQueryState<Spec>)
        -> CollectionChange?
    {
        let before = state.items
        var event = entity
        if event.version == 0, var stamped = event as? any FixtureVersioned {
            stamped.version = 1
            event = stamped as! Spec.Entity
        }
        let change = state.apply(event)
        check(change, from: before, to: state.items)
        state.checkInvariants()
        return change
    }

    static func check<Element: Identifiable & Equatable>(
        _ change: CollectionChange?, from before: [Element], to after: [Element]
    ) {
        if let change {
            #expect(change.applying(to: before, new: after) == after)
        } else {
            #expect(before == after)
        }
    }

    // MARK: Channels

    static func channel(
        _ id: Int, messageAt: Double?, type: ChannelType = .community, member: Bool = true, version: Int = 0
    ) -> Channel {
        var channel = Channel(
            channelId: String(format: "c%03d", id), type: type, createdAt: Date(timeIntervalSince1970: 0),
            lastMessageAt: messageAt.map(Date.init(timeIntervalSince1970:)),
            currentUserMembership: member ? .member : .none)
        channel.version = version
        return channel
    }

    static let joinedByLastMessage = ChannelListSpec(
        query: ChannelListQuery(
            filter: .equal(.joined, to: true), sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 5))

    static func channelState(_ spec: ChannelListSpec = joinedByLastMessage) -> LiveQueryState<ChannelListSpec> {
        LiveQueryState(spec: spec, context: me, pageSize: spec.query.pageSize)
    }

    @Test func channelsEnterMoveAndLeave() {
        var state = Self.channelState()
        Self.applyPage([], hasMore: false, to: &state)
        #expect(Self.apply(Self.channel(1, messageAt: 10), to: &state) == CollectionChange(insertions: [0]))
        #expect(Self.apply(Self.channel(2, messageAt: 20), to: &state) == CollectionChange(insertions: [0]))
        #expect(
            Self.apply(Self.channel(1, messageAt: 30), to: &state)
                == CollectionChange(moves: [.init(from: 1, to: 0, isModified: true)]))
        #expect(
            Self.apply(Self.channel(1, messageAt: 30, member: false), to: &state) == CollectionChange(deletions: [0]))
        #expect(Self.apply(Self.channel(2, messageAt: 20), to: &state) == nil)
        #expect(state.items.map(\.channelId) == ["c002"])
    }

    @Test func visibilityDecidesWhatAListMayShow() {
        let all = ChannelListSpec(query: ChannelListQuery(filter: .all, pageSize: 5))
        var state = Self.channelState(all)
        Self.applyPage([], hasMore: false, to: &state)
        #expect(Self.apply(Self.channel(1, messageAt: 1, type: .live), to: &state) == CollectionChange(insertions: [0]))
        // Leaving a live channel makes it invisible: it leaves even a list that does not filter
        // on membership.
        #expect(
            Self.apply(Self.channel(1, messageAt: 1, type: .live, member: false), to: &state)
                == CollectionChange(deletions: [0]))
        #expect(Self.apply(Self.channel(2, messageAt: 1, type: .conversation, member: false), to: &state) == nil)
        #expect(
            Self.apply(Self.channel(3, messageAt: 1, type: .community, member: false), to: &state)
                == CollectionChange(insertions: [0]))
        var admin = LiveQueryState(spec: all, context: QueryContext(viewerId: "boss", isAdmin: true), pageSize: 5)
        Self.applyPage([], hasMore: false, to: &admin)
        #expect(
            Self.apply(Self.channel(4, messageAt: 1, type: .live, member: false), to: &admin)
                == CollectionChange(insertions: [0]))
    }

    @Test func windowBoundsTheList() {
        var state = Self.channelState()
        Self.applyPage((0..<5).map { Self.channel($0, messageAt: Double(100 - $0)) }, hasMore: true, to: &state)
        #expect(state.items.count == 5)
        #expect(Self.apply(Self.channel(9, messageAt: 1), to: &state) == nil)
        #expect(Self.apply(Self.channel(8, messageAt: 99.5), to: &state) == CollectionChange(insertions: [1]))
        #expect(state.hasMore)
        // The next page extends the window; what it lists beyond the old end appears.
        Self.applyPage([Self.channel(9, messageAt: 1)], hasMore: false, to: &state)
        #expect(state.items.map(\.channelId) == ["c000", "c008", "c001", "c002", "c003", "c004", "c009"])
        #expect(!state.hasMore)
    }

    @Test func aPageDropsStaleElementsItDoesNotList() {
        var state = Self.channelState()
        // The cache still shows c001 as joined (its removal was missed); the page, read at
        // revision 10, no longer lists it.
        state.prefill(from: [Self.channel(1, messageAt: 50, version: 3), Self.channel(2, messageAt: 40, version: 4)])
        #expect(state.items.map(\.channelId) == ["c001", "c002"])
        Self.applyPage([Self.channel(2, messageAt: 40, version: 4)], hasMore: false, revision: 10, to: &state)
        #expect(state.items.map(\.channelId) == ["c002"])
    }

    @Test func aPageDoesNotUndoNewerEvents() {
        var state = Self.channelState()
        Self.applyPage([], hasMore: false, revision: 1, to: &state)
        // Events newer than the page's revision were applied first: c001 joined (version 12) and
        // c002 was left (version 13).
        let joined = Self.channel(1, messageAt: 50, version: 12)
        let left = Self.channel(2, messageAt: 40, member: false, version: 13)
        Self.apply(joined, to: &state)
        state.beginReload()
        // The page, read at revision 10, predates both: it lists c002 and not c001.
        let cache = [joined.channelId: joined, left.channelId: left]
        Self.applyPage(
            [Self.channel(2, messageAt: 40, version: 9)], hasMore: false, revision: 10, cache: cache, to: &state)
        #expect(state.items.map(\.channelId) == ["c001"])
    }

    /// Over random update streams, the incrementally maintained list equals a from-scratch
    /// filter + sort of the cache within the window.
    @Test func incrementalMaintenanceEqualsRecomputation() {
        let spec = ChannelListSpec(
            query: ChannelListQuery(
                filter: .and([.equal(.joined, to: true), .equal(.type, to: .community)]),
                sort: [Sorting(key: .lastMessageAt, isAscending: false)], pageSize: 5))
        for seed in UInt64(1)...100 {
            var generator = SeededGenerator(seed: seed)
            var state = Self.channelState(spec)
            var cache: [String: Channel] = [:]
            let complete = seed % 2 == 0
            for id in 0..<20 {
                let channel = Self.channel(id, messageAt: Double.random(in: 0...100, using: &generator))
                cache[channel.channelId] = channel
            }
            let sorted = cache.values.sorted { spec.sortKey(for: $0) < spec.sortKey(for: $1) }
            let firstPage = complete ? sorted.filter(state.matches) : Array(sorted.prefix(5))
            Self.applyPage(firstPage, hasMore: !complete, cache: cache, to: &state)
            let end = firstPage.last.map(spec.sortKey(for:))
            for _ in 0..<200 {
                let id = Int.random(in: 0..<30, using: &generator)
                let updated = Self.channel(
                    id, messageAt: Bool.random(using: &generator) ? Double.random(in: 0...100, using: &generator) : nil,
                    type: Int.random(in: 0..<5, using: &generator) == 0 ? .live : .community,
                    member: Int.random(in: 0..<4, using: &generator) != 0)
                cache[updated.channelId] = updated
                Self.apply(updated, to: &state)
                let expected = cache.values
                    .filter { state.matches($0) && (complete || !(end! < spec.sortKey(for: $0))) }
                    .sorted { spec.sortKey(for: $0) < spec.sortKey(for: $1) }
                #expect(state.items.map(\.channelId) == expected.map(\.channelId), "seed \(seed)")
                #expect(state.items == expected, "seed \(seed)")
            }
        }
    }

    /// Paging through a long list with small pages while events move channels around: once the
    /// window is large next to a page, pages are placed element by element (not rebuilt); the
    /// window always equals a from-scratch filter + sort of the cache up to the last page's end.
    @Test func laterPagesOfALongListArePlacedIntoTheWindow() {
        let spec = ChannelListSpec(
            query: ChannelListQuery(
                filter: .equal(.type, to: .community), sort: [Sorting(key: .lastMessageAt, isAscending: false)],
                pageSize: 4))
        for seed in UInt64(1)...20 {
            var generator = SeededGenerator(seed: seed)
            var state = Self.channelState(spec)
            var cache: [String: Channel] = [:]
            for id in 0..<300 {
                let channel = Self.channel(id, messageAt: Double.random(in: 0...1_000, using: &generator))
                cache[channel.channelId] = channel
            }
            func matchingAfter(_ cursor: SortKey?) -> [Channel] {
                cache.values.filter(state.matches).map { (spec.sortKey(for: $0), $0) }
                    .filter { key, _ in cursor.map { $0 < key } ?? true }
                    .sorted { $0.0 < $1.0 }.map(\.1)
            }
            var cursor: SortKey?
            var bound: SortKey?
            var complete = false
            for round in 0..<60 {
                if !complete {
                    let after = matchingAfter(cursor)
                    let page = Array(after.prefix(4))
                    complete = after.count <= 4
                    Self.applyPage(page, hasMore: !complete, cache: cache, to: &state)
                    if let last = page.last {
                        cursor = spec.sortKey(for: last)
                        bound = cursor
                    }
                }
                for _ in 0..<Int.random(in: 0...6, using: &generator) {
                    let id = Int.random(in: 0..<300, using: &generator)
                    let updated = Self.channel(
                        id, messageAt: Double.random(in: 0...1_000, using: &generator),
                        type: Int.random(in: 0..<6, using: &generator) == 0 ? .live : .community)
                    cache[updated.channelId] = updated
                    Self.apply(updated, to: &state)
                }
                let expected = matchingAfter(nil).filter { complete || !(bound! < spec.sortKey(for: $0)) }
                #expect(state.items.map(\.channelId) == expected.map(\.channelId), "seed \(seed), round \(round)")
            }
        }
    }

    // MARK: Members

    static func member(
        _ userId: String, joined: Double, membership: Membership = .member, muted: Bool = false, roles: [String] = []
    ) -> ChannelMember {
        ChannelMember(
            channelId: "club", userId: userId, roles: roles, membership: membership, isMuted: muted,
            joinedAt: Date(timeIntervalSince1970: joined))
    }

    static func memberState(_ query: MemberListQuery) -> LiveQueryState<MemberListSpec> {
        LiveQueryState(spec: MemberListSpec(query: query), context: me, pageSize: query.pageSize)
    }

    @Test func membersEnterMoveAndLeave() {
        var state = Self.memberState(MemberListQuery(channelId: "club"))
        Self.applyPage([Self.member("a", joined: 1), Self.member("b", joined: 2)], hasMore: false, to: &state)
        #expect(Self.apply(Self.member("c", joined: 3), to: &state) == CollectionChange(insertions: [2]))
        #expect(
            Self.apply(Self.member("a", joined: 4), to: &state)
                == CollectionChange(moves: [.init(from: 0, to: 2, isModified: true)]))
        #expect(
            Self.apply(Self.member("b", joined: 2, roles: ["vip"]), to: &state)
                == CollectionChange(modifications: [0], modificationsInNew: [0]))
        #expect(
            Self.apply(Self.member("c", joined: 3, membership: .banned), to: &state) == CollectionChange(deletions: [1])
        )
        #expect(Self.apply(Self.member("zzz", joined: 9, membership: .none), to: &state) == nil)
        #expect(Self.apply(ChannelMember(channelId: "other", userId: "q"), to: &state) == nil)
        #expect(state.items.map(\.userId) == ["b", "a"])
    }

    /// Member ids are user ids, unique only within a channel: the same user's record in another
    /// channel must leave the list alone (found by the convergence test, seed 14).
    @Test func aMemberOfAnotherChannelDoesNotTouchTheList() {
        var state = Self.memberState(MemberListQuery(channelId: "club"))
        Self.applyPage([Self.member("a", joined: 1), Self.member("b", joined: 2)], hasMore: false, to: &state)
        var elsewhere = Self.member("a", joined: 5)
        elsewhere.channelId = "other"
        #expect(Self.apply(elsewhere, to: &state) == nil)
        elsewhere.membership = .none
        #expect(Self.apply(elsewhere, to: &state) == nil)
        #expect(state.items.map(\.userId) == ["a", "b"])
    }

    /// A page is the server's word as of its revision: a value no newer than that revision,
    /// inside the window, that the pages left out does not belong, whatever the client's own
    /// matching says (a stale cached record refreshed with the same version); a newer one does.
    @Test func aValueNoNewerThanThePagesIsNotTakenBack() {
        func member(_ userId: String, joined: Double, version: Int) -> ChannelMember {
            var member = Self.member(userId, joined: joined)
            member.version = version
            return member
        }
        var state = Self.memberState(MemberListQuery(channelId: "club", pageSize: 2))
        Self.applyPage(
            [member("a", joined: 1, version: 3), member("c", joined: 3, version: 5)], hasMore: true, revision: 10,
            to: &state)
        // b joined between a and c at version 7, before the page's revision 10: the page left b
        // out (b had left again by then), so the same version does not bring b back.
        #expect(Self.apply(member("b", joined: 2, version: 7), to: &state) == nil)
        #expect(state.items.map(\.userId) == ["a", "c"])
        // A later page read at an older revision (8) covers less: version 9 is newer than it.
        Self.applyPage([member("d", joined: 4, version: 6)], hasMore: false, revision: 8, to: &state)
        #expect(Self.apply(member("b", joined: 2, version: 9), to: &state) == CollectionChange(insertions: [1]))
        #expect(state.items.map(\.userId) == ["a", "b", "c", "d"])
        // A value the list already shows is updated whatever its version.
        #expect(Self.apply(member("a", joined: 1, version: 3), to: &state) == nil)
        #expect(state.items.count == 4)
        // A reload that discards starts over: nothing is covered until its first page.
        _ = state.beginReload(discarding: true)
        #expect(Self.apply(member("e", joined: 5, version: 7), to: &state) == nil)  // before the first page
        Self.applyPage([member("a", joined: 1, version: 3)], hasMore: false, revision: 12, to: &state)
        #expect(Self.apply(member("e", joined: 5, version: 11), to: &state) == nil)
        #expect(Self.apply(member("e", joined: 5, version: 13), to: &state) == CollectionChange(insertions: [1]))
    }

    @Test func memberFiltersDecideMembershipOfTheList() {
        var muted = Self.memberState(MemberListQuery(channelId: "club", filter: .mute, sortBy: .lastCreated))
        Self.applyPage([], hasMore: false, to: &muted)
        #expect(Self.apply(Self.member("a", joined: 1, muted: true), to: &muted) == CollectionChange(insertions: [0]))
        #expect(Self.apply(Self.member("b", joined: 2, muted: true), to: &muted) == CollectionChange(insertions: [0]))
        #expect(Self.apply(Self.member("a", joined: 1), to: &muted) == CollectionChange(deletions: [1]))
        var banned = Self.memberState(MemberListQuery(channelId: "club", filter: .ban))
        Self.applyPage([], hasMore: false, to: &banned)
        #expect(
            Self.apply(Self.member("b", joined: 3, membership: .banned), to: &banned)
                == CollectionChange(insertions: [0]))
        #expect(
            Self.apply(Self.member("b", joined: 3, membership: .none), to: &banned) == CollectionChange(deletions: [0]))
    }

    @Test func prefillShowsCachedMembersButStillAsksForTheFirstPage() {
        var state = Self.memberState(MemberListQuery(channelId: "club", pageSize: 2))
        state.prefill(from: [Self.member("c", joined: 3), Self.member("b", joined: 2), Self.member("d", joined: 4)])
        #expect(state.items.map(\.userId) == ["b", "c"])
        #expect(state.beginPageLoad() == .queryMembers(MemberListQuery(channelId: "club", pageSize: 2), after: nil))
        state.failPageLoad()
        Self.applyPage([Self.member("a", joined: 1), Self.member("b", joined: 2)], hasMore: true, to: &state)
        #expect(state.items.map(\.userId) == ["a", "b"])
    }

    // MARK: Messages

    static func message(_ sequence: Int, _ text: String = "m", channelId: String = "c") -> Message {
        Message(messageId: "m\(sequence)", channelId: channelId, sequence: sequence, userId: "u", text: text)
    }

    static func messageState() -> LiveQueryState<MessageListSpec> {
        LiveQueryState(spec: MessageListSpec(channelId: "c", pageSize: 3), context: me, pageSize: 3)
    }

    static func messages(_ range: ClosedRange<Int>) -> [Message] { range.map { message($0) } }

    @Test func eventsBeforeTheFirstMessagePageAreIgnored() {
        var state = Self.messageState()
        #expect(Self.apply(Self.message(1), to: &state) == nil)
        #expect(state.beginPageLoad() == .queryMessages(MessagePageQuery(channelId: "c", position: .latest, limit: 3)))
    }

    @Test func newestPageThenOlderPagesThenNewMessages() {
        var state = Self.messageState()
        #expect(
            Self.applyPage(Self.messages(5...7), hasMore: true, to: &state) == CollectionChange(insertions: [0, 1, 2]))
        #expect(state.hasMore)
        #expect(
            state.beginPageLoad()
                == .queryMessages(MessagePageQuery(channelId: "c", position: .before(sequence: 5), limit: 3)))
        state.failPageLoad()
        #expect(Self.apply(Self.message(8), to: &state) == CollectionChange(insertions: [3]))
        Self.applyPage(Self.messages(2...4), hasMore: true, to: &state)
        Self.applyPage(Self.messages(1...1), hasMore: false, to: &state)
        #expect(!state.hasMore)
        #expect(state.items.map(\.sequence) == Array(1...8))
    }

    @Test func editsAndDeletionsAreModificationsInPlace() {
        var state = Self.messageState()
        Self.applyPage(Self.messages(1...3), hasMore: false, to: &state)
        #expect(
            Self.apply(Self.message(2, "edited"), to: &state)
                == CollectionChange(modifications: [1], modificationsInNew: [1]))
        #expect(Self.apply(Self.message(2, "edited"), to: &state) == nil)
        var deleted = Self.message(3, "")
        deleted.isDeleted = true
        #expect(Self.apply(deleted, to: &state) == CollectionChange(modifications: [2], modificationsInNew: [2]))
        #expect(state.items.count == 3)
        #expect(Self.apply(Self.message(4, channelId: "other"), to: &state) == nil)
    }

    @Test func emptyChannelHasNothingBefore() {
        var state = Self.messageState()
        #expect(Self.applyPage([], hasMore: false, to: &state) == nil)
        #expect(!state.hasMore)
        #expect(Self.apply(Self.message(1), to: &state) == CollectionChange(insertions: [0]))
    }

    @Test func aReloadGoesAsFarAsTheWindowReached() {
        var state = Self.messageState()
        Self.applyPage(Self.messages(5...7), hasMore: true, to: &state)
        Self.applyPage(Self.messages(2...4), hasMore: true, to: &state)
        state.beginReload()
        Self.applyPage(Self.messages(6...8), hasMore: true, to: &state)
        #expect(
            state.nextReloadRequest()
                == .queryMessages(MessagePageQuery(channelId: "c", position: .before(sequence: 6), limit: 3)))
        Self.applyPage(Self.messages(3...5), hasMore: true, to: &state)
        #expect(
            state.nextReloadRequest()
                == .queryMessages(MessagePageQuery(channelId: "c", position: .before(sequence: 3), limit: 3)))
        Self.applyPage(Self.messages(1...2), hasMore: false, to: &state)
        #expect(state.nextReloadRequest() == nil)
        #expect(state.items.map(\.sequence) == Array(1...8))
    }
}

/// The fixtures' entities, whose version a test may set (every model's `version` is a `var`; the
/// protocol ``Versioned`` only reads it).
protocol FixtureVersioned {
    var version: Int { get set }
}

extension Channel: FixtureVersioned {}
extension ChannelMember: FixtureVersioned {}
extension Message: FixtureVersioned {}
extension User: FixtureVersioned {}
