import ChatAPI
import Foundation
import TestSupport

/// Random channels and sorts for property tests. Values come from small pools so that ties,
/// missing values and mixed metadata types are common.
enum RandomChannels {
    static func channel(id: String, using generator: inout SeededGenerator) -> Channel {
        func date() -> Date {
            Date(timeIntervalSince1970: Double(Int.random(in: 0...5, using: &generator)) * 100)
        }
        let names: [String?] = [nil, "alpha", "Alpha", "beta", "Élan", "elan", "Zeta", ""]
        let scores: [JSON?] = [
            nil, nil, .null, 1, 2.5, 2.5, "1", "b", true, false, ["x": 1], [1, 2],
        ]
        var metadata: [String: JSON] = [:]
        if let score = scores.randomElement(using: &generator)! { metadata["score"] = score }
        if Bool.random(using: &generator) {
            metadata["nested"] = [
                "value": .number(Double(Int.random(in: 0...3, using: &generator)))
            ]
        }
        let lastSequence = Int.random(in: 0...4, using: &generator)
        return Channel(
            channelId: id, type: ChannelType.allCases.randomElement(using: &generator)!,
            metadata: metadata, tags: Bool.random(using: &generator) ? ["a"] : [],
            displayName: names.randomElement(using: &generator)!,
            memberCount: Int.random(in: 0...3, using: &generator),
            lastActivity: date(), createdAt: date(), updatedAt: date(),
            lastMessageAt: Bool.random(using: &generator) ? date() : nil,
            lastSequence: lastSequence,
            currentUserMembership: Membership.allCases.randomElement(using: &generator)!,
            readSequence: Int.random(in: 0...lastSequence, using: &generator))
    }

    static func channels(count: Int, using generator: inout SeededGenerator) -> [Channel] {
        (0..<count).map { channel(id: "c\($0)", using: &generator) }
    }

    static let keys: [ChannelSortingKey] = [
        .default, .createdAt, .updatedAt, .lastMessageAt, .lastActivity, .memberCount,
        .displayName, .unreadCount, .hasUnread, .channelId, .metadata("score"),
        .metadata("nested.value"),
    ]

    static func sort(using generator: inout SeededGenerator) -> [Sorting] {
        (0..<Int.random(in: 0...3, using: &generator)).map { _ in
            Sorting(
                key: keys.randomElement(using: &generator)!,
                isAscending: Bool.random(using: &generator))
        }
    }
}
