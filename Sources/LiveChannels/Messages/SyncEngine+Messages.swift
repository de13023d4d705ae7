import ChatAPI
import LiveCore

extension SyncEngine {
    /// Loads `list`'s next page to show (the newest page first, then the one before its window)
    /// and merges it. The caller marked the list as loading (``LiveMessageList/startLoading()``).
    func loadPage(of list: LiveMessageList) async {
        let query = list.withState { $0.pageQuery }
        do {
            try query.validate()
            try await perform(.queryMessages(query)) { _, response in
                guard let page = response.messagesValue else {
                    throw ChatError.unavailable("the server answered a message query with something else")
                }
                list.merge(page, finished: true)
            }
        } catch {
            list.fail(error)
        }
    }

    /// Sends a request answered with a message and applies the message to the live lists of its
    /// channel, before returning it.
    /// - Throws: the server's `ChatError`.
    func performMessageRequest(_ request: ChatRequest) async throws -> Message {
        try await perform(request) { engine, response in
            guard let message = response.messageValue else {
                throw ChatError.unavailable("the server answered \(request) with something else")
            }
            engine.messages.applyResponse([message])
            return message
        }
    }

    /// Reloads every live message list after a reconnect that could not resume: a loaded list
    /// refetches its whole window (newest messages included), an unloaded one its newest page.
    /// Typing indicators are cleared: their stops may have been missed.
    func resyncMessages() async {
        messages.typing.reset()
        for list in messages.liveLists {
            guard let start = list.withState({ $0.windowStart }) else {
                if list.startLoading() { await loadPage(of: list) }
                continue
            }
            var after = start - 1
            var more = true
            while more {
                let query = MessagePageQuery(
                    channelId: list.channelId, position: .after(sequence: after), limit: ChannelListQuery.maximumPageSize)
                do {
                    let last = try await perform(.queryMessages(query)) { _, response in
                        guard let page = response.messagesValue else { throw ChatError.unavailable("no messages") }
                        list.merge(page, finished: false)
                        return page.hasNext ? page.messages.last?.sequence : nil
                    }
                    more = last != nil
                    after = last ?? after
                } catch {
                    list.fail(error)
                    more = false
                }
            }
        }
    }
}
