import ChatAPI

/// Something that describes a channel to create: the common shape of `CommunityChannelBuilder`,
/// `LiveChannelBuilder` and `ConversationChannelBuilder`, which `ChannelRepository` accepts.
///
/// A builder is a mutable, single-threaded value holder (Amity style): set its fields, then hand
/// it to the repository, which calls `makeDraft()` once and sends the result. Builders are not
/// `Sendable`; build and use one on one thread or task.
public protocol ChannelBuilder: AnyObject {
    /// The type of channel the builder creates.
    var channelType: ChannelType { get }

    /// The request for the server, after checking every field a client can check on its own.
    ///
    /// A pure function of the fields set so far: it changes nothing and may be called again.
    /// The server remains the authority (an id in use, unknown users and the like are only
    /// found out there).
    ///
    /// - Throws: `ChatError.invalidArgument(field:reason:)` naming the draft field at fault, or
    ///   `ChatError.limitExceeded` for oversized metadata.
    func makeDraft() throws(ChatError) -> ChannelDraft
}
