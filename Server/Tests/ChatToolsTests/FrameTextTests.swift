import TestSupport
import Testing

@testable import chat_load

/// The load generator's byte search (`FrameText`) finds what a plain reading of the text finds:
/// it decides which frames are answers and reads their ids, so a wrong offset would miscount.
@Suite struct FrameTextTests {
    /// The first occurrence, by the definition: the smallest offset where `needle`'s bytes start.
    static func reference(_ needle: String, in text: String) -> Int? {
        let haystack = Array(text.utf8)
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty, haystack.count >= pattern.count else { return nil }
        for start in 0...(haystack.count - pattern.count)
        where Array(haystack[start..<start + pattern.count]) == pattern {
            return start + pattern.count
        }
        return nil
    }

    @Test(arguments: 1...4 as ClosedRange<UInt64>)
    func findsTheFirstOccurrenceLikeAPlainScan(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        // A small alphabet, multi-byte characters among it, so matches and near-matches are common.
        let alphabet: [Character] = ["a", "b", "\"", ":", "é", "漢"]
        func word(_ length: Int) -> String {
            String((0..<length).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &random)] })
        }
        for _ in 0..<2_000 {
            let text = word(Int.random(in: 0...40, using: &random))
            let needle = word(Int.random(in: 0...4, using: &random))
            #expect(
                FrameText.end(of: needle, in: text) == Self.reference(needle, in: text),
                "seed \(seed): '\(needle)' in '\(text)'")
        }
    }

    @Test func readsAnAnswersIdAndKind() {
        let response = #"{"type":"response","id":41,"envelope":{"response":{"ok":{}},"lastEventSequence":-3}}"#
        let event = #"{"type":"event","envelope":{"event":{"typing":{"id":7}},"sequence":2}}"#
        #expect(FrameText.isAnswer(response))
        #expect(FrameText.integer(after: "\"id\":", in: response) == 41)
        #expect(FrameText.integer(after: "\"lastEventSequence\":", in: response) == -3)
        #expect(!FrameText.isAnswer(event))
        #expect(FrameText.contains(#"{"type":"failure","id":1}"#, "\"type\":\"failure\""))
        #expect(FrameText.isResponse(response) && !FrameText.isResponse(#"{"type":"failure","id":1}"#))
        #expect(FrameText.stamp(in: "m t=-12 x") == -12)
        #expect(FrameText.stamp(in: "no stamp") == nil)
    }

    /// A frame's kind read from its leading type, and searched for when the type comes later
    /// (another writer's key order): the same answer either way, and a type that only starts
    /// like an answer's ("responses") or sits in a value is not one.
    @Test func tellsAnAnswerWhereverItsTypeIs() {
        let answers = [
            #"{"type":"response","id":1,"envelope":{}}"#, #"{"type":"failure","id":2,"error":{}}"#,
            #"{"id":3,"envelope":{},"type":"response"}"#, #"{"error":{"notFound":{"_0":"x"}},"type":"failure","id":4}"#,
        ]
        let others = [
            #"{"type":"event","envelope":{"event":{"messageNew":{"_0":{"text":"\"type\":\"response\""}}}}}"#,
            #"{"type":"responses","id":5}"#, #"{"type":"welcome","protocol":1}"#, #"{"protocol":1,"type":"welcome"}"#,
            #"{"type":"#, "",
        ]
        for frame in answers { #expect(FrameText.isAnswer(frame), "\(frame)") }
        for frame in others { #expect(!FrameText.isAnswer(frame), "\(frame)") }
        #expect(FrameText.isResponse(answers[2]) && !FrameText.isResponse(answers[3]))
    }
}
