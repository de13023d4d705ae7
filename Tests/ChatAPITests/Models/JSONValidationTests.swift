import ChatAPI
import Foundation
import Testing

/// A JSON value nested `depth` arrays/objects deep, built without recursion.
func nestedJSON(depth: Int, leaf: JSON = 1) -> JSON {
    var value = leaf
    for level in 0..<depth { value = level.isMultiple(of: 2) ? ["k": value] : [value] }
    return value
}

@Suite struct JSONValidationTests {
    @Test func valuesUpToTheDepthLimitPassDeeperOnesAreRefusedWithoutOverflow() throws {
        try nestedJSON(depth: JSON.maximumDepth).validate(field: "metadata")
        #expect(
            throws: ChatError.invalidArgument(
                field: "metadata", reason: "must not nest arrays and objects more than 32 deep")
        ) {
            try nestedJSON(depth: JSON.maximumDepth + 1).validate(field: "metadata")
        }
        // About 18 KB encoded, far under the size limit: it used to overflow the stack in the
        // size check (JSONEncoder).
        let hostile = nestedJSON(depth: 3_000)
        let error = chatErrorOf { try JSON.validateMetadata(["deep": hostile]) }
        #expect(
            error == .invalidArgument(field: "metadata", reason: "must not nest arrays and objects more than 32 deep"))
    }

    @Test func nonFiniteNumbersAreRefusedAnywhereInTheValue() {
        for bad in [Double.nan, .infinity, -.infinity] {
            for value in [JSON.number(bad), ["a": [1, .number(bad)]], nestedJSON(depth: 20, leaf: .number(bad))] {
                #expect(chatErrorOf { try JSON.validateMetadata(["x": value], field: "metadata") }?.field == "metadata")
            }
        }
    }

    @Test func metadataOverTheSizeLimitIsLimitExceededAfterTheStructureChecks() {
        let big = String(repeating: "x", count: JSON.maximumMetadataBytes)
        guard case .limitExceeded? = chatErrorOf({ try JSON.validateMetadata(["big": .string(big)]) }) else {
            Issue.record("expected limitExceeded")
            return
        }
        // Structure first: a big value with a NaN is invalid, not merely big.
        #expect(
            chatErrorOf { try JSON.validateMetadata(["big": .string(big), "n": .number(.nan)]) }?.field == "metadata")
    }

    @Test func encodingOrDescribingAHostileDeepValueDoesNotOverflow() {
        let hostile = nestedJSON(depth: 3_000)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(hostile) }
        #expect(hostile.description == "<JSON nested more than \(JSON.maximumDecodingDepth) deep>")
        #expect(nestedJSON(depth: JSON.maximumDepth).description.hasPrefix("[{\"k\":"))
    }

    @Test func decodingAHostileDeepDocumentThrowsInsteadOfOverflowing() throws {
        let deep = String(repeating: "[", count: 3_000) + String(repeating: "]", count: 3_000)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSON.self, from: Data(deep.utf8)) }
        let fine = String(repeating: "[", count: 40) + "1" + String(repeating: "]", count: 40)
        #expect(try JSONDecoder().decode(JSON.self, from: Data(fine.utf8)) == nestedArray(40))
    }

    private func nestedArray(_ depth: Int) -> JSON {
        var value: JSON = 1
        for _ in 0..<depth { value = [value] }
        return value
    }
}

/// The `ChatError` `body` throws (`nil` if none).
func chatErrorOf(_ body: () throws -> Void) -> ChatError? {
    do {
        try body()
        return nil
    } catch let error as ChatError {
        return error
    } catch {
        return .unavailable("unexpected \(error)")
    }
}

extension ChatError {
    /// The field of an `invalidArgument`.
    var field: String? {
        if case .invalidArgument(let field, _) = self { field } else { nil }
    }
}
