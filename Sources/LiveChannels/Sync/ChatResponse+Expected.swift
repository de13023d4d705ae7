import ChatAPI

extension ChatResponse {
    /// The one way the client reads a response: the value `accessor` finds in it (a key path
    /// such as `\.channelsValue`), or `ChatError.unavailable` naming what was asked
    /// (`request`) when the server answered with another kind of response — a server bug or a
    /// protocol mismatch, never the user's fault.
    ///
    /// ```swift
    /// let page = try response.expected(\.channelsValue, answering: "a channel query")
    /// ```
    func expected<Value>(_ accessor: (ChatResponse) -> Value?, answering request: @autoclosure () -> String)
        throws(ChatError) -> Value
    {
        guard let value = accessor(self) else {
            throw ChatError.unavailable("the server answered \(request()) with something else")
        }
        return value
    }
}
