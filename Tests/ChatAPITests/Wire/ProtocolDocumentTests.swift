import ChatAPI
import Foundation
import Testing

/// `Docs/Protocol.md` is the contract a client in another language is written from: every
/// ```` ```json ```` block in it must decode as a frame, and it must show every frame type and
/// every request, so the document cannot drift from the code.
@Suite struct ProtocolDocumentTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    private static func jsonBlocks() throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("Docs/Protocol.md"), encoding: .utf8)
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```json" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// The name of an encoded enum value: its one key.
    private static func caseName(of value: some Encodable) throws -> String {
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(value)) as? [String: Any]
        return try #require(object?.keys.first)
    }

    @Test func everyExampleDecodesAndEncodesBackToTheSameFrame() throws {
        let blocks = try Self.jsonBlocks()
        #expect(blocks.count >= 50)
        for block in blocks {
            let frame: WireFrame
            do {
                frame = try WireCodec.decode(block)
            } catch {
                Issue.record("Docs/Protocol.md: \(error)\n\(block)")
                continue
            }
            #expect(try WireCodec.decode(WireCodec.encode(frame)) == frame, "\(block)")
        }
    }

    @Test func everyFrameTypeAndEveryRequestIsShown() throws {
        let frames = try Self.jsonBlocks().map { try WireCodec.decode($0) }
        #expect(Set(frames.map(\.type)) == ["hello", "welcome", "request", "response", "failure", "event"])
        var shown: Set<String> = []
        for case .request(_, let request) in frames { shown.insert(try Self.caseName(of: request)) }
        // Every case declared in ChatRequest.swift.
        let source = try String(
            contentsOf: Self.root.appendingPathComponent("Sources/ChatAPI/Requests/ChatRequest.swift"), encoding: .utf8)
        let declared = Set(
            source.split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.drop { $0 == " " }
                guard trimmed.hasPrefix("case ") else { return nil }
                return String(trimmed.dropFirst(5).prefix { $0.isLetter || $0.isNumber })
            })
        #expect(declared.count >= 39)
        #expect(
            declared.subtracting(shown).isEmpty, "requests without an example: \(declared.subtracting(shown).sorted())")
    }
}
