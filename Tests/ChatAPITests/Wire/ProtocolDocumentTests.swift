import ChatAPI
import Foundation
import Testing

/// `Docs/Protocol.md` is the contract a client in another language is written from: every
/// ```` ```json ```` block in it must decode as a frame, and it must show every frame type and
/// every request, so the document cannot drift from the code.
@Suite struct ProtocolDocumentTests {
    /// The repository's root.
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every ```` ```json ```` block of `Docs/Protocol.md`, in order.
    static func jsonBlocks() throws -> [String] {
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

    /// The cases declared in `Sources/ChatAPI/<path>`: the names of its lines that start with
    /// `case ` (a `case .x:` of a switch names none).
    static func declaredCases(in path: String) throws -> Set<String> {
        let source = try String(contentsOf: root.appendingPathComponent("Sources/ChatAPI/\(path)"), encoding: .utf8)
        return Set(
            source.split(separator: "\n").compactMap { line -> String? in
                let trimmed = line.drop { $0 == " " }
                guard trimmed.hasPrefix("case ") else { return nil }
                let name = trimmed.dropFirst(5).prefix { $0.isLetter || $0.isNumber }
                return name.isEmpty ? nil : String(name)
            })
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
        let declared = try Self.declaredCases(in: "Requests/ChatRequest.swift")
        #expect(declared.count >= 39)
        #expect(
            declared.subtracting(shown).isEmpty, "requests without an example: \(declared.subtracting(shown).sorted())")
    }
}
