import Foundation
import LiveChannels

/// The cookbook's `NewChatViewModel` (seed 003) without SwiftUI: search users by any part of
/// their id or name, page through them, pick some, and open (or create) the conversation.
@MainActor
final class NewChatViewModel: ChatUserSearchControllerDelegate {
    enum NewChatState { case initial, loading, loaded, channel, error }

    let chatClient: ChatClient
    let waiter = Waiter()
    var chatUsers: [User] = []
    var state: NewChatState = .initial { didSet { waiter.check() } }
    var channelController: ChatChannelController?
    private lazy var searchController: ChatUserSearchController = chatClient.userSearchController()

    init(chatClient: ChatClient) {
        self.chatClient = chatClient
        searchController.delegate = self
        // An empty initial search, to get all users.
        searchUsers(with: nil)
    }

    var searchText: String = "" {
        didSet { searchUsers(with: searchText) }
    }

    var selectedUsers: [User] = [] {
        didSet {
            do {
                try makeChannelController()
            } catch {
                state = .error
            }
        }
    }

    func onlineInfo(for user: User) -> String {
        if user.isOnline {
            "Online"
        } else if let lastActiveAt = user.lastActiveAt {
            "last seen \(lastActiveAt)"
        } else {
            "Offline"
        }
    }

    func loadMore() {
        searchController.loadNextUsers(limit: 50) { [weak self] _ in
            guard let self else { return }
            chatUsers = searchController.userArray
        }
    }

    func controller(_ controller: ChatUserSearchController, didChangeUsers changes: [ListChange<User>]) {
        chatUsers = controller.userArray
        waiter.check()
    }

    private func searchUsers(with term: String?) {
        state = .loading
        searchController.search(term: term) { [weak self] error in
            self?.state = error == nil ? .loaded : .error
        }
    }

    private func makeChannelController() throws {
        let selectedUserIds = Set(selectedUsers.map(\.userId))
        channelController = try chatClient.channelController(
            createDirectMessageChannelWith: selectedUserIds, name: nil, imageURL: nil, extraData: [:])
        channelController?.synchronize { [weak self] error in
            self?.state = error == nil ? .channel : .error
        }
    }
}

/// Drives the view model as a user would.
@MainActor
struct NewChatFlow {
    let client: ChatClient
    let other: ChatClient

    func run() async throws {
        let model = NewChatViewModel(chatClient: client)
        await model.waiter.until { model.state == .loaded }
        print("everyone:", model.chatUsers.map { "\($0.displayName ?? $0.userId) – \(model.onlineInfo(for: $0))" })

        model.searchText = "BR"  // "bruno" by id, "Bruno Böhm" by name
        await model.waiter.until { model.state == .loaded && model.chatUsers.map(\.userId) == ["bruno"] }
        print("search 'BR':", model.chatUsers.map { $0.displayName ?? $0.userId })

        model.searchText = "bo"  // "bob", and "Böhm" with diacritics folded
        await model.waiter.until { model.state == .loaded && model.chatUsers.count == 2 }
        print("search 'bo':", model.chatUsers.map { $0.displayName ?? $0.userId })

        model.selectedUsers = model.chatUsers.filter { $0.userId == "bob" }
        await model.waiter.until { model.state == .channel }
        let channel = try require(model.channelController)
        print("conversation:", channel.channelId ?? "-", "type:", channel.channel?.type ?? .conversation)

        // Selecting bob again opens the same conversation.
        model.selectedUsers = model.chatUsers.filter { $0.userId == "bob" }
        await model.waiter.until { model.state == .channel && model.channelController?.channelId != nil }
        print("opened again:", model.channelController?.channelId == channel.channelId)
    }
}

/// `try #require` without the testing library.
func require<T>(_ value: T?) throws -> T {
    guard let value else { throw ChatError.notFound("a value") }
    return value
}
