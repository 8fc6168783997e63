import SyncRelay
import NatsRelay
import SyncKernel
import SyncKernelSimulator
import XCTest

/// Chunking and reassembly on their own, on a clock the test moves: order, bounds, expiry,
/// eviction, and hostile headers.
final class ChunkReassemblerTests: XCTestCase {
    private func limits(maxMessageBytes: Int = 10_000, maxChunks: Int = 64, budgetBytes: Int = 20_000,
                        maxPartials: Int = 4, timeoutMillis: Int64 = 1_000) -> ChunkReassembler.Limits {
        var options = NatsRelayOptions()
        options.maxMessageBytes = maxMessageBytes
        options.maxChunksPerMessage = maxChunks
        options.reassemblyBudgetBytes = budgetBytes
        options.maxPartialMessages = maxPartials
        options.reassemblyTimeoutMillis = timeoutMillis
        return ChunkReassembler.Limits(options)
    }

    private func chunks(_ payload: [UInt8], id: UInt64, chunkBytes: Int = 117) throws -> [[UInt8]] {
        try RelayChunk.split(payload, messageID: id, chunkBytes: chunkBytes, maxChunks: 1_000)
    }

    func testChunksJoinInAnyOrder() throws {
        var generator = SeededGenerator(seed: 5)
        for round in 0..<50 {
            let payload = Payloads.bytes(Int(generator.next() % 3_000), seed: UInt64(round))
            var pieces = try chunks(payload, id: UInt64(round))
            pieces.shuffle(using: &generator)
            var reassembler = ChunkReassembler(limits: limits())
            var out: [[UInt8]] = []
            for piece in pieces {
                let (joined, drops) = reassembler.accept(piece, now: 0)
                XCTAssertEqual(drops, [], "round \(round), seed 5")
                if let joined { out.append(joined) }
            }
            XCTAssertEqual(out, [payload], "round \(round), seed 5")
            XCTAssertEqual(reassembler.heldPartials, 0)
            XCTAssertEqual(reassembler.heldBytes, 0)
        }
    }

    func testSplitCutsFullChunksAndARest() throws {
        let pieces = try chunks(Payloads.bytes(250, seed: 1), id: 9)
        XCTAssertEqual(pieces.map(\.count), [117, 117, 50 + 17])
        XCTAssertEqual(try chunks([], id: 9).map(\.count), [17], "an empty payload is one header")
        XCTAssertThrowsError(try RelayChunk.split([UInt8](repeating: 0, count: 301), messageID: 1, chunkBytes: 117, maxChunks: 3)) {
            XCTAssertEqual(($0 as? RelayError)?.code, .relayPayloadTooLarge)
        }
    }

    func testTheShortFormCarriesAPayloadThatFitsOneMessageWithOneHeaderByte() throws {
        let payload = Payloads.bytes(116, seed: 3)
        let short = try RelayChunk.split(payload, messageID: 9, chunkBytes: 117, maxChunks: 10, short: true)
        XCTAssertEqual(short, [[RelayChunk.wholeFormat] + payload], "one format byte, then the payload")
        XCTAssertEqual(try RelayChunk.split([], messageID: 9, chunkBytes: 117, maxChunks: 10, short: true), [[RelayChunk.wholeFormat]])
        let long = try RelayChunk.split(Payloads.bytes(117, seed: 3), messageID: 9, chunkBytes: 117, maxChunks: 10, short: true)
        XCTAssertEqual(long.map { $0[0] }, [RelayChunk.format, RelayChunk.format], "one byte too many for one message: chunks")
        var reassembler = ChunkReassembler(limits: limits())
        let (joined, drops) = reassembler.accept(short[0], now: 0)
        XCTAssertEqual(joined, payload)
        XCTAssertEqual(drops, [])
        XCTAssertEqual(reassembler.accept([RelayChunk.wholeFormat], now: 0).payload, [], "an empty payload")
        for piece in long { if let whole = reassembler.accept(piece, now: 0).payload { XCTAssertEqual(whole, Payloads.bytes(117, seed: 3)) } }
        XCTAssertEqual(reassembler.heldPartials, 0)
    }

    func testRejectAShortFormMessageBeyondTheLargestPayload() {
        var reassembler = ChunkReassembler(limits: limits(maxMessageBytes: 250))
        let (payload, drops) = reassembler.accept([RelayChunk.wholeFormat] + Payloads.bytes(251, seed: 1), now: 0)
        XCTAssertNil(payload)
        XCTAssertEqual(drops, [.oversized])
        XCTAssertEqual(reassembler.accept([RelayChunk.wholeFormat] + Payloads.bytes(250, seed: 1), now: 0).payload?.count, 250)
    }

    func testTwoPayloadsInterleavedArriveSeparately() throws {
        let first = Payloads.bytes(500, seed: 1)
        let second = Payloads.bytes(400, seed: 2)
        let a = try chunks(first, id: 1)
        let b = try chunks(second, id: 2)
        var reassembler = ChunkReassembler(limits: limits())
        var out: [[UInt8]] = []
        for index in 0..<max(a.count, b.count) {
            for source in [b, a] where index < source.count {
                if let joined = reassembler.accept(source[index], now: 0).payload { out.append(joined) }
            }
        }
        XCTAssertEqual(out, [second, first])
    }

    func testRejectMalformedChunkHeaders() throws {
        let good = try chunks(Payloads.bytes(300, seed: 1), id: 7)
        var otherFormat = good[0]
        otherFormat[0] = 3
        var zeroCount = good[0]
        zeroCount.replaceSubrange(13..<17, with: [0, 0, 0, 0])
        var indexPastCount = good[0]
        indexPastCount.replaceSubrange(9..<13, with: [0, 0, 0, 3])
        for (name, message) in [("short", Array(good[0].prefix(16))), ("empty", []), ("other format", otherFormat),
                                ("zero count", zeroCount), ("index past count", indexPastCount)] {
            var reassembler = ChunkReassembler(limits: limits())
            let (payload, drops) = reassembler.accept(message, now: 0)
            XCTAssertNil(payload, name)
            XCTAssertEqual(drops, [.malformedChunk], name)
        }
    }

    func testRejectARepeatedChunkOrOneThatContradictsItsPayload() throws {
        let pieces = try chunks(Payloads.bytes(300, seed: 1), id: 7)
        var reassembler = ChunkReassembler(limits: limits())
        XCTAssertEqual(reassembler.accept(pieces[0], now: 0).drops, [])
        XCTAssertEqual(reassembler.accept(pieces[0], now: 0).drops, [.malformedChunk], "a repeat")
        var otherCount = pieces[1]
        otherCount.replaceSubrange(13..<17, with: [0, 0, 0, 9])
        XCTAssertEqual(reassembler.accept(otherCount, now: 0).drops, [.malformedChunk], "another count")
        XCTAssertNil(reassembler.accept(pieces[1], now: 0).payload)
        XCTAssertEqual(reassembler.accept(pieces[2], now: 0).payload, Payloads.bytes(300, seed: 1),
                       "the payload still completes from its real chunks")
    }

    func testRejectPayloadsBeyondTheBounds() throws {
        var reassembler = ChunkReassembler(limits: limits(maxMessageBytes: 250, maxChunks: 2))
        let tooManyChunks = try chunks(Payloads.bytes(240, seed: 1), id: 1)
        XCTAssertEqual(tooManyChunks.count, 3)
        XCTAssertEqual(reassembler.accept(tooManyChunks[0], now: 0).drops, [.oversized])
        let single = try chunks(Payloads.bytes(251, seed: 1), id: 2, chunkBytes: 400)
        XCTAssertEqual(reassembler.accept(single[0], now: 0).drops, [.oversized])
        let large = try chunks(Payloads.bytes(260, seed: 1), id: 3, chunkBytes: 147)
        XCTAssertEqual(large.count, 2)
        XCTAssertEqual(reassembler.accept(large[0], now: 0).drops, [])
        XCTAssertEqual(reassembler.accept(large[1], now: 0).drops, [.oversized], "the bytes add up past the bound")
        XCTAssertEqual(reassembler.heldPartials, 0)
    }

    func testAPartialPayloadExpiresAfterTheTimeout() throws {
        let pieces = try chunks(Payloads.bytes(300, seed: 1), id: 1)
        var reassembler = ChunkReassembler(limits: limits(timeoutMillis: 1_000))
        XCTAssertEqual(reassembler.accept(pieces[0], now: 0).drops, [])
        XCTAssertEqual(reassembler.accept(pieces[1], now: 999).drops, [])
        let late = reassembler.accept(pieces[2], now: 1_000)
        XCTAssertEqual(late.drops, [.expired])
        XCTAssertNil(late.payload, "the last chunk starts a new partial that can never complete")
        XCTAssertEqual(reassembler.accept([1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], now: 2_000).drops, [.expired])
    }

    func testTheOldestPartialIsEvictedForANewerOne() throws {
        var reassembler = ChunkReassembler(limits: limits(maxPartials: 2))
        let a = try chunks(Payloads.bytes(300, seed: 1), id: 1)
        let b = try chunks(Payloads.bytes(300, seed: 2), id: 2)
        let c = try chunks(Payloads.bytes(300, seed: 3), id: 3)
        XCTAssertEqual(reassembler.accept(a[0], now: 0).drops, [])
        XCTAssertEqual(reassembler.accept(b[0], now: 1).drops, [])
        XCTAssertEqual(reassembler.accept(c[0], now: 2).drops, [.evicted])
        XCTAssertEqual(reassembler.heldPartials, 2)
        XCTAssertNil(reassembler.accept(a[1], now: 3).payload)
        XCTAssertEqual(reassembler.accept(b[1], now: 4).drops, [.evicted], "a's new partial pushed out the oldest, b")
    }

    func testTheBudgetBoundsTheBytesHeld() throws {
        var reassembler = ChunkReassembler(limits: limits(maxMessageBytes: 1_000, budgetBytes: 1_000, maxPartials: 8))
        let a = try chunks(Payloads.bytes(900, seed: 1), id: 1, chunkBytes: 617)
        let b = try chunks(Payloads.bytes(900, seed: 2), id: 2, chunkBytes: 617)
        XCTAssertEqual(reassembler.accept(a[0], now: 0).drops, [])
        XCTAssertEqual(reassembler.accept(b[0], now: 0).drops, [.evicted])
        XCTAssertLessThanOrEqual(reassembler.heldBytes, 1_000)
        XCTAssertEqual(reassembler.accept(b[1], now: 0).payload, Payloads.bytes(900, seed: 2))
    }
}
