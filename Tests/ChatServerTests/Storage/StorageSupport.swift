import ChatAPI
import Foundation
import TestSupport

@testable import ChatServer

/// A fresh directory for one test's store files, removed by ``remove()``.
struct StoreDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("server-store-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var file: URL { url.appendingPathComponent("server.sqlite") }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

extension TestDevice {
    /// The texts of a channel's whole history, read page by page from the newest back to the
    /// first (`limit` a page), as a client pages back.
    func historyTexts(of channelId: String, limit: Int) async throws -> [String] {
        var texts: [String] = []
        var position = MessagePageQuery.Position.latest
        while true {
            let answer = try await send(
                .queryMessages(MessagePageQuery(channelId: channelId, position: position, limit: limit)))
            guard case .messages(let page) = answer else { throw ChatError.unavailable("not a page: \(answer)") }
            texts = page.messages.map(\.text) + texts
            guard page.hasPrevious, let first = page.messages.first else { return texts }
            position = .before(sequence: first.sequence)
        }
    }
}
