@testable import ChatAPI
import Foundation
import Testing
import TestSupport

/// Frames appended to one `WireFrameBatch` (the gateway's batch of writes): each frame's stretch
/// is the frame's own bytes, and a channel value written by an earlier frame is copied from there
/// exactly when it is the very value written last.
@Suite struct WireFrameBatchTests {
    /// An event that carries `channel`, of a kind chosen at random.
    private func event(with channel: Channel, _ values: inout RandomWireValues) -> ChatEvent {
        switch Int.random(in: 0..<4, using: &values.random) {
        case 0: .messageNew(values.message(), channel: channel)
        case 1: .readMarkerMoved(values.member(), channel: channel)
        case 2: .memberAdded(values.member(), channel: channel)
        default: .channelUpdated(channel)
        }
    }

    /// Seeded: events carrying channels from a small pool (sometimes changed in between: a field,
    /// or only the version), mixed with random frames. Every stretch is exactly
    /// what `WireCodec.encodeBytes` writes for its frame, and the channels copied are exactly
    /// those written right after the same value.
    @Test func eachFramesStretchIsItsOwnBytesAndRepeatedChannelsAreCopied() throws {
        let seed = SeededGenerator.testSeed(0xBA7C4)
        var values = RandomWireValues(seed: seed)
        var pool = (0..<3).map { _ in values.channel() }
        var generations = [0, 0, 0]
        // The pool channel written last, as (index, generation); nil once another was.
        var lastWritten: (index: Int, generation: Int)?
        var expectedCopies = 0
        var batch = WireFrameBatch(capacity: 64)
        var stretches: [(frame: WireFrame, range: Range<Int>)] = []
        for round in 0..<400 {
            let frame: WireFrame
            if values.oneIn(4) {
                frame = values.frame()
                if String(decoding: try WireCodec.encodeBytes(frame), as: UTF8.self).contains(
                    "\"currentUserMembership\"")
                {
                    lastWritten = nil  // a channel of its own was written
                }
            } else {
                let index = Int.random(in: 0..<pool.count, using: &values.random)
                switch Int.random(in: 0..<10, using: &values.random) {
                case 0:
                    // A new version, the fields unchanged (the version is kept beside them).
                    pool[index].version += 1
                    generations[index] += 1
                case 1:
                    pool[index].messageCount += 1
                    generations[index] += 1
                default:
                    break
                }
                if let last = lastWritten, last.index == index, last.generation == generations[index] {
                    expectedCopies += 1
                }
                lastWritten = (index, generations[index])
                frame = .event(EventEnvelope(sequence: round, event: event(with: pool[index], &values)))
            }
            let start = batch.count
            try batch.append(frame)
            stretches.append((frame, start..<batch.count))
        }
        let bytes = batch.bytes
        for (index, stretch) in stretches.enumerated() {
            let own = try WireCodec.encodeBytes(stretch.frame)
            let written = Array(bytes[stretch.range])
            let context = "seed \(seed), frame \(index):\nbatch \(String(decoding: written, as: UTF8.self))"
            if case .event = stretch.frame {
                #expect(written == own, "\(context)\nown   \(String(decoding: own, as: UTF8.self))")
            } else {
                // A rare request is `JSONEncoder`'s, whose key order changes from one call to the
                // next: compare trees.
                #expect(
                    try JSONTree(String(decoding: written, as: UTF8.self))
                        == JSONTree(String(decoding: own, as: UTF8.self)), "\(context)")
            }
        }
        #expect(expectedCopies > 20, "seed \(seed): the pool should repeat often")
        #expect(batch.channelsCopied == expectedCopies, "seed \(seed)")
    }

    /// A frame the writer refuses half-way, after it wrote a channel (a page whose second channel
    /// holds metadata nested too deep, left to `JSONEncoder`), leaves no channel to copy behind:
    /// the next frame with the first channel encodes it again, and its bytes are its own.
    @Test func aRefusedFramesChannelIsNotCopied() throws {
        var values = RandomWireValues(seed: SeededGenerator.testSeed(0xBA7C5))
        let first = values.channel()
        var deep = values.channel()
        deep.metadata = ["deep": (0..<(JSON.maximumDepth + 2)).reduce(JSON.number(1)) { inner, _ in .array([inner]) }]
        let page = WireFrame.response(
            id: 1,
            envelope: ResponseEnvelope(
                position: 1, revision: 1, response: .channels(Page(items: [first, deep], next: nil, hasNext: false))))
        let event = WireFrame.event(EventEnvelope(sequence: 2, event: .channelUpdated(first)))
        var batch = WireFrameBatch()
        try batch.append(page)
        let start = batch.count
        try batch.append(event)
        #expect(Array(batch.bytes[start...]) == (try WireCodec.encodeBytes(event)))
        #expect(batch.channelsCopied == 0)
        // Written in full by the writer, the same channel is then copied.
        let again = batch.count
        try batch.append(event)
        #expect(Array(batch.bytes[again...]) == (try WireCodec.encodeBytes(event)))
        #expect(batch.channelsCopied == 1)
    }

    /// Taking the bytes forgets the frames before: nothing is copied from a buffer given away.
    @Test func takenBytesAreNotCopiedFrom() throws {
        var values = RandomWireValues(seed: SeededGenerator.testSeed(0xBA7C6))
        let channel = values.channel()
        let event = WireFrame.event(EventEnvelope(sequence: 1, event: .channelUpdated(channel)))
        var batch = WireFrameBatch()
        try batch.append(event)
        #expect(try batch.takeBytes() == WireCodec.encodeBytes(event))
        #expect(batch.isEmpty)
        try batch.append(event)
        #expect(try batch.takeBytes() == WireCodec.encodeBytes(event))
        #expect(batch.channelsCopied == 0)
    }
}
