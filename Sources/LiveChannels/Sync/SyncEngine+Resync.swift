import ChatAPI
import LiveCore

/// Loading what the live handles show: list pages, the user's memberships, and the resync that
/// reloads everything shown after a reconnect that cannot resume.
extension SyncEngine {
    // MARK: Live lists

    /// The one way a live list loads: sends `request` (a page the list asked for), applies the
    /// page in order with events, and goes on while a reload needs more pages. A failure is
    /// reported by the list, which retries once connected.
    func loadPages<Spec>(of query: LiveQuery<Spec>, startingWith request: ChatRequest) async {
        var request = request
        let connection = retries.connection
        while true {
            do {
                let next = try await perform(request) { _, envelope in
                    try query.applyPage(envelope.response, revision: envelope.revision)
                }
                guard let next else { return }
                request = next
            } catch {
                query.failPage(error, startedIn: connection)
                return
            }
        }
    }

    // MARK: Memberships and resync

    /// Loads every channel the user is a member of, so that the total unread count covers them
    /// all; events keep it current afterwards. A cached channel still marked as joined that the
    /// server no longer lists (left while events were missed) is fetched again.
    func loadMemberships() async {
        let connection = retries.connection
        let query = ChannelListQuery(
            filter: .equal(.joined, to: true), sort: [Sorting(key: .channelId, isAscending: true)],
            pageSize: ChannelListQuery.maximumPageSize)
        var cursor: PageCursor?
        var listed: Set<String> = []
        unread.publish(loadingStatus: .loading)
        do {
            while true {
                let page = try await perform(.queryChannels(query, after: cursor)) { engine, envelope in
                    let page = try envelope.response.expected(\.channelsValue, answering: "a channel query")
                    engine.channels.upsert(page.items)
                    return page
                }
                listed.formUnion(page.items.map(\.channelId))
                guard page.hasNext, let next = page.next else { break }
                cursor = next
            }
        } catch {
            unread.publish(dataStatus: .error, loadingStatus: .error, error: error)
            retries.add(startedIn: connection) { [weak self] in await self?.loadMemberships() }
            return
        }
        let stale = channels.all.filter { Self.unreadContribution(of: $0) != nil && !listed.contains($0.channelId) }
        for channel in stale { await refetch(channel) }
        unread.publish(dataStatus: .fresh, loadingStatus: .loaded)
    }

    /// Fetches a cached channel again; one the user can no longer see is marked as not joined,
    /// so it leaves every list and the unread total. A fetch that fails otherwise (the
    /// connection dropped meanwhile) is tried again once connected: a reconnect that resumes
    /// would not resync, and the channel would stay joined.
    func refetch(_ channel: Channel) async {
        let connection = retries.connection
        do {
            _ = try await entity(
                answering: .getChannel(channelId: channel.channelId), in: channels, value: \.channelValue)
        } catch ChatError.notFound {
            channelIsNotVisible(channel.channelId, cachedVersion: channel.version)
        } catch {
            retries.add(startedIn: connection) { [weak self] in
                guard let self, let current = self.channels.entity(channel.channelId) else { return }
                await self.refetch(current)
            }
        }
    }

    /// The server answered that the user cannot see `channelId` (`notFound`): a cached value
    /// still showing the user as joined or banned — a leave or removal whose event was missed —
    /// is marked not joined, so it leaves every list and the unread total. Not when a newer
    /// value came meanwhile (`cachedVersion` is the version cached when the request was sent):
    /// its event is newer than the answer.
    func channelIsNotVisible(_ channelId: String, cachedVersion: Int?) {
        guard let cached = channels.entity(channelId), cached.version == cachedVersion,
            cached.currentUserMembership != .none
        else { return }
        var gone = cached
        gone.currentUserMembership = .none
        channels.upsert([gone])
    }

    /// Reloads everything shown after a reconnect that could not resume: the channels behind the
    /// unread total, every live list as far as it reached, every live channel and user object.
    /// Typing indicators are cleared: their stops may have been missed.
    ///
    /// With `discarding` (the server's history started over and the caches were emptied), every
    /// list's first page replaces what it showed, and a live channel or user the new history
    /// does not have shows no value and the `notFound` error.
    func resync(discarding: Bool = false) async {
        typing.reset()
        await loadMemberships()
        let queries: [any EntityCacheObserver] =
            channels.observers + members.observers + messages.observers + users.observers
        for query in queries { await query.reload(discarding: discarding) }
        for channelId in channels.observedKeys {
            if let channel = channels.entity(channelId) {
                await refetch(channel)
            } else {
                await fetch(channelId, in: channels, request: .getChannel(channelId: channelId), value: \.channelValue)
            }
        }
        for userId in users.observedKeys {
            await fetch(userId, in: users, request: .getUser(userId: userId), value: \.userValue)
        }
    }

    /// Fetches an entity a live object shows but the cache lacks; one the server does not have
    /// is shown as missing. Other failures are left to the object's own retry.
    func fetch<Entity: CachedEntity>(
        _ key: String, in cache: EntityCache<Entity>, request: ChatRequest,
        value: @escaping @Sendable (ChatResponse) -> Entity?
    ) async {
        do {
            _ = try await entity(answering: request, in: cache, value: value)
        } catch let error as ChatError {
            if case .notFound = error { cache.publishMissing(key, error: error) }
        } catch {}
    }
}
