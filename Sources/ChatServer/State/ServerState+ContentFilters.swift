import ChatAPI
import Foundation

extension ServerState {
    /// The limits of ``ModerationSettings``.
    enum ContentFilterLimits {
        static let maxEntries = 1_000
        static let maxWordLength = 64
    }

    /// A channel's content filters, for its moderators and admins.
    ///
    /// - Throws: `notFound`; `notAllowed` (conversation); `forbidden` (not a moderator).
    func moderationSettings(of channelId: String, by caller: Caller, now: Date) throws(ChatError) -> ModerationSettings
    {
        try InputCheck.id(channelId, field: "channelId")
        return try filterableRecord(channelId, by: caller, now: now).moderationSettings
    }

    /// Replaces a channel's content filters (words trimmed; domains lowercased). They apply to
    /// messages sent or edited from now on.
    ///
    /// - Throws: as ``moderationSettings(of:by:now:)``; `invalidArgument` (`blockedWords`:
    ///   empty, longer than 64 characters, more than 1,000; `allowedURLDomains`: empty, with a
    ///   scheme, path or space, more than 1,000).
    @discardableResult
    mutating func setModerationSettings(
        _ settings: ModerationSettings, of channelId: String, by caller: Caller, now: Date
    ) throws(ChatError) -> ModerationSettings {
        try InputCheck.id(channelId, field: "channelId")
        _ = try filterableRecord(channelId, by: caller, now: now)
        var clean = settings
        clean.blockedWords = settings.blockedWords.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
        guard clean.blockedWords.count <= ContentFilterLimits.maxEntries else {
            throw .invalidArgument(field: "blockedWords", reason: "at most \(ContentFilterLimits.maxEntries) words")
        }
        for word in clean.blockedWords where word.isEmpty || word.count > ContentFilterLimits.maxWordLength {
            throw .invalidArgument(
                field: "blockedWords", reason: "each word has 1…\(ContentFilterLimits.maxWordLength) characters")
        }
        if let domains = settings.allowedURLDomains {
            guard domains.count <= ContentFilterLimits.maxEntries else {
                throw .invalidArgument(
                    field: "allowedURLDomains", reason: "at most \(ContentFilterLimits.maxEntries) domains")
            }
            clean.allowedURLDomains = try domains.map { (domain: String) throws(ChatError) -> String in
                let lowered = domain.lowercased()
                guard !lowered.isEmpty, lowered.count <= 253,
                    !lowered.contains(where: { "/: ".contains($0) || $0.isNewline })
                else {
                    throw .invalidArgument(
                        field: "allowedURLDomains", reason: "'\(domain)' is not a bare domain such as example.com")
                }
                return lowered
            }
        }
        channels[channelId]!.moderationSettings = clean
        return clean
    }

    /// `text` after the channel's content filters: a blocked word refuses it or is masked, a
    /// link outside the allowed domains refuses it.
    ///
    /// - Throws: `invalidArgument(field: "text")` naming the reason.
    /// - Complexity: O(text length × blocked words).
    static func filtered(_ text: String, by settings: ModerationSettings) throws(ChatError) -> String {
        var result = text
        for word in settings.blockedWords {
            let ranges = wholeWordRanges(of: word, in: result)
            guard !ranges.isEmpty else { continue }
            if settings.blockedWordAction == .refuse {
                throw .invalidArgument(field: "text", reason: "contains a word blocked in this channel")
            }
            for range in ranges.reversed() {
                result.replaceSubrange(range, with: String(repeating: "*", count: result[range].count))
            }
        }
        if let allowed = settings.allowedURLDomains {
            for host in linkedHosts(in: result)
            where !allowed.contains(where: { host == $0 || host.hasSuffix("." + $0) }) {
                throw .invalidArgument(field: "text", reason: "links to \(host) are not allowed in this channel")
            }
        }
        return result
    }

    /// The ranges where `word` occurs in `text` as a whole word, ignoring case and diacritics.
    static func wholeWordRanges(of word: String, in text: String) -> [Range<String.Index>] {
        var ranges: [Range<String.Index>] = []
        var searchStart = text.startIndex
        while searchStart < text.endIndex,
            let range = text.range(
                of: word, options: [.caseInsensitive, .diacriticInsensitive], range: searchStart..<text.endIndex)
        {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            let isWordCharacter = { (character: Character?) in character.map { $0.isLetter || $0.isNumber } ?? false }
            if !isWordCharacter(before) && !isWordCharacter(after) { ranges.append(range) }
            searchStart = range.upperBound
        }
        return ranges
    }

    /// The lowercased hosts of the links in `text`: words with a scheme (`https://host/…`) or
    /// starting with `www.`.
    static func linkedHosts(in text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).compactMap { token in
            let word = token.trimmingCharacters(in: CharacterSet(charactersIn: "()<>[]{}\"'.,;:!?"))
            if let schemeEnd = word.range(of: "://") {
                let rest = word[schemeEnd.upperBound...]
                let host = rest.prefix { !"/?#:".contains($0) }
                return host.isEmpty ? nil : host.lowercased()
            }
            if word.lowercased().hasPrefix("www.") {
                return word.prefix { !"/?#:".contains($0) }.lowercased()
            }
            return nil
        }
    }

    private func filterableRecord(_ channelId: String, by caller: Caller, now: Date) throws(ChatError) -> ChannelRecord
    {
        let channel = try authorizedRecord(channelId, .manageContentFilters, by: caller, now: now)
        guard channel.type == .community || channel.type == .live else {
            throw .notAllowed(
                "only community and live channels have content filters; channel '\(channelId)' is \(channel.type.rawValue)"
            )
        }
        return channel
    }
}
