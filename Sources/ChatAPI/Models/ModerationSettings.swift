/// A channel's content filters (the seed's "profanity filters" and "whitelisted URLs"), which
/// the server applies to every message sent or edited in the channel, by anyone.
///
/// Available in community and live channels; moderators and admins read and change them
/// (`ChannelModeration.moderationSettings()`, `setModerationSettings(_:)`).
public struct ModerationSettings: Sendable, Hashable, Codable {
    /// What happens to a message containing a blocked word.
    public enum BlockedWordAction: String, Sendable, Hashable, Codable {
        /// The message is refused: `ChatError.invalidArgument(field: "text")`.
        case refuse
        /// The message is stored with each blocked word replaced by asterisks.
        case mask
    }

    /// Words (or phrases) refused in messages, matched as whole words, ignoring case and
    /// diacritics. At most 1,000, each 1…64 characters.
    public var blockedWords: [String]
    /// What happens to a message containing a blocked word.
    public var blockedWordAction: BlockedWordAction
    /// When set, a message may link only to these domains and their subdomains
    /// (`"example.com"` allows `https://docs.example.com/x`); a link elsewhere refuses the
    /// message with `ChatError.invalidArgument(field: "text")`. `nil`: any link. At most 1,000.
    public var allowedURLDomains: [String]?

    /// Settings; the defaults filter nothing.
    public init(
        blockedWords: [String] = [], blockedWordAction: BlockedWordAction = .refuse,
        allowedURLDomains: [String]? = nil
    ) {
        self.blockedWords = blockedWords
        self.blockedWordAction = blockedWordAction
        self.allowedURLDomains = allowedURLDomains
    }
}

extension ModerationSettings {
    private enum CodingKeys: String, CodingKey { case blockedWords, blockedWordAction, allowedURLDomains }

    /// Decodes settings; a field left out takes its default (no blocked words, `.refuse`, any
    /// link), as the wire protocol promises for every field a client leaves out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            blockedWords: try container.decodeIfPresent([String].self, forKey: .blockedWords) ?? [],
            blockedWordAction: try container.decodeIfPresent(BlockedWordAction.self, forKey: .blockedWordAction)
                ?? .refuse,
            allowedURLDomains: try container.decodeIfPresent([String].self, forKey: .allowedURLDomains))
    }
}
