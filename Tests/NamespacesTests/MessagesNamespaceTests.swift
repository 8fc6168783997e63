import Foundation
import MessagesNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

final class MessagesNamespaceTests: XCTestCase {
    private let messageID = TwoDevices.id(1)

    private func sample() -> Message {
        Message(messageID: messageID, conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1_000), isOutgoing: false,
                body: "hello", senderName: "")
    }

    private func write(_ store: KernelStore, _ body: (NamespaceTransaction<MessagesNamespace>) throws(SyncKernelError) -> Void) throws {
        try store.write(MessagesNamespace.self, body)
    }

    private func held(_ store: KernelStore) throws -> Message? {
        try store.row(MessagesNamespace.self, key: messageID)
    }

    func testPeerPubkeyRewriteOnReceiptDoesNotMoveTheDigest() throws {
        let pair = try TwoDevices()
        var onA = sample()
        onA.peerPubkey = TwoDevices.key32(1)
        onA.observedAt = TwoDevices.at(1_001)
        var onB = sample()
        onB.peerPubkey = TwoDevices.key32(2)
        onB.observedAt = TwoDevices.at(1_500)
        onB.localRowID = 42
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(onA) }
        try write(pair.b) { tx throws(SyncKernelError) in try tx.record(onB) }
        XCTAssertTrue(pair.agree(MessagesNamespace.self), "per-device fields never reach the leaf")
        let before = pair.root(MessagesNamespace.self, pair.a)
        let outcome = try pair.a.write(MessagesNamespace.self) { tx throws(SyncKernelError) in
            try tx.canonicalizePeerPubkey(messageID, pinned: TwoDevices.key32(9))
        }
        XCTAssertTrue(outcome.changedNamespaces.isEmpty)
        XCTAssertEqual(pair.root(MessagesNamespace.self, pair.a), before)
        XCTAssertEqual(try held(pair.a)?.peerPubkey, TwoDevices.key32(9))
        try pair.sync(MessagesNamespace.self)
        XCTAssertEqual(try held(pair.b)?.peerPubkey, TwoDevices.key32(2), "B keeps its own resolution")
        XCTAssertEqual(try held(pair.b)?.localRowID, 42)
    }

    func testEmptyAndAbsentPeerUserIDHashHashAlikeAndBackfillsConverge() throws {
        let pair = try TwoDevices()
        var empty = sample()
        empty.peerUserIDHash = []
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(empty) }
        try write(pair.b) { tx throws(SyncKernelError) in try tx.record(self.sample()) }
        XCTAssertTrue(pair.agree(MessagesNamespace.self))
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.backfillIdentity(messageID, peerUserIDHash: TwoDevices.key32(5), senderName: "Ada")
        }
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.backfillIdentity(messageID, peerUserIDHash: TwoDevices.key32(6), senderName: "Eve")
        }
        XCTAssertEqual(try held(pair.a)?.senderName, "Ada", "a held backfill is never overwritten")
        try pair.sync(MessagesNamespace.self)
        XCTAssertTrue(pair.agree(MessagesNamespace.self))
        XCTAssertEqual(try held(pair.b)?.peerUserIDHash, TwoDevices.key32(5))
    }

    func testDeliveryIsMonotone() throws {
        let pair = try TwoDevices()
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(self.sample()) }
        try pair.sync(MessagesNamespace.self)
        try write(pair.b) { tx throws(SyncKernelError) in try tx.markDelivered(messageID) }
        try pair.sync(MessagesNamespace.self)
        XCTAssertEqual(try held(pair.a)?.isDelivered, true)
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(self.sample()) }
        XCTAssertEqual(try held(pair.a)?.isDelivered, true, "an undelivered copy cannot take the bit back")
    }

    func testDeleteDominatesAConcurrentEditAndPurgesThePlaintext() throws {
        let pair = try TwoDevices()
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(self.sample()) }
        try pair.sync(MessagesNamespace.self)
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.edit(messageID, body: "edited later on A", opID: TwoDevices.id(0xe1), editedAt: TwoDevices.at(9_999))
        }
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.delete(messageID, scope: .me, opID: TwoDevices.id(0xd1), at: TwoDevices.at(2_000))
        }
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.delete(messageID, scope: .everyone, opID: TwoDevices.id(0xd2), at: TwoDevices.at(2_001))
        }
        try pair.sync(MessagesNamespace.self)
        XCTAssertTrue(pair.agree(MessagesNamespace.self))
        for store in [pair.a, pair.b] {
            let message = try XCTUnwrap(try held(store))
            XCTAssertEqual(MessageFold.effective(message).deleted, .everyone, "everyone > me > live")
            XCTAssertEqual(message.body, "")
            XCTAssertFalse(message.ops.contains { if case .edit(let body, _) = $0.action { return !body.isEmpty } else { return false } },
                           "no plaintext survives in edit operations")
        }
    }

    func testAnEditMadeAfterSeeingAnotherWinsOnADeviceTenMinutesBehind() throws {
        let pair = try TwoDevices()
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(self.sample()) }
        try pair.sync(MessagesNamespace.self)
        let now = 1_000_000.0
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.edit(messageID, body: "first edit (A, correct clock)", opID: TwoDevices.id(0xff), editedAt: TwoDevices.at(now))
        }
        try pair.sync(MessagesNamespace.self)
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.edit(messageID, body: "second edit (B, 10 minutes behind)", opID: TwoDevices.id(0x01),
                        editedAt: TwoDevices.at(now + 60 - 600))
        }
        try pair.sync(MessagesNamespace.self)
        for store in [pair.a, pair.b] {
            XCTAssertEqual(MessageFold.effective(try XCTUnwrap(try held(store))).body, "second edit (B, 10 minutes behind)",
                           "the edit that had seen the other wins, whatever the clocks say")
        }
        XCTAssertTrue(pair.agree(MessagesNamespace.self))
    }

    func testReactionsInEquivalentUnicodeFormsMergeAlikeInEitherOrder() {
        var x = sample()
        var y = sample()
        x.reactions = [Reaction(reactor: [1], emoji: "caf\u{E9}")]
        y.reactions = [Reaction(reactor: [1], emoji: "cafe\u{301}")]
        let (xy, yx) = (MessageFold.merge(x, y), MessageFold.merge(y, x))
        XCTAssertEqual(MessagesNamespace.leafEncoding(of: xy), MessagesNamespace.leafEncoding(of: yx))
        XCTAssertEqual(xy.reactions.count, 2, "the two forms are two reactions, byte for byte")
        var opOne = sample()
        var opTwin = sample()
        opOne.ops = [MessageOp(opID: TwoDevices.id(7), action: .edit(body: "caf\u{E9}", media: nil), causalOrder: 1, editedAt: TwoDevices.at(1))]
        opTwin.ops = [MessageOp(opID: TwoDevices.id(7), action: .edit(body: "cafe\u{301}", media: nil), causalOrder: 1, editedAt: TwoDevices.at(1))]
        XCTAssertEqual(MessagesNamespace.leafEncoding(of: MessageFold.merge(opOne, opTwin)),
                       MessagesNamespace.leafEncoding(of: MessageFold.merge(opTwin, opOne)), "one op id in two forms settles alike")
    }

    func testConcurrentEditsIgnoreTheClockAndGoToTheGreaterOpID() throws {
        let pair = try TwoDevices()
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(self.sample()) }
        try pair.sync(MessagesNamespace.self)
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.edit(messageID, body: "A, clock a year fast", opID: TwoDevices.id(0x01), editedAt: TwoDevices.at(40_000_000))
        }
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.edit(messageID, body: "B, correct clock", opID: TwoDevices.id(0xfe), editedAt: TwoDevices.at(1_000))
        }
        try pair.sync(MessagesNamespace.self)
        for store in [pair.a, pair.b] {
            XCTAssertEqual(MessageFold.effective(try XCTUnwrap(try held(store))).body, "B, correct clock",
                           "concurrent edits resolve by op id; the fast clock does not win")
        }
        XCTAssertTrue(pair.agree(MessagesNamespace.self))
    }

    func testFoldIsCommutativeAssociativeAndIdempotentOnLeaves() {
        var random = SeededGenerator(seed: 31)
        func variant() -> Message {
            var message = sample()
            if random.chance(0.5) { message.isDelivered = true }
            if random.chance(0.5) { message.senderName = ["", "Ada", "Bob"][Int(random.next() % 3)] }
            if random.chance(0.3) { message.reactions = [Reaction(reactor: [UInt8(random.next() % 3)], emoji: "+1")] }
            for _ in 0..<(random.next() % 3) {
                let action: MessageOp.Action = random.chance(0.2) ? .delete(.me) : .edit(body: "e\(random.next() % 4)", media: nil)
                message.ops.append(MessageOp(opID: [UInt8](repeating: UInt8(random.next() % 6), count: 16), action: action,
                                             causalOrder: random.next() % 3, editedAt: TwoDevices.at(Double(random.next() % 5))))
            }
            var seen: Set<[UInt8]> = []
            message.ops = message.ops.filter { seen.insert($0.opID).inserted }.sorted { $0.opID.lexicographicallyPrecedes($1.opID) }
            return message
        }
        for round in 0..<300 {
            let (x, y, z) = (variant(), variant(), variant())
            let leaf = MessagesNamespace.leaf(of:)
            XCTAssertEqual(leaf(MessageFold.merge(x, y)), leaf(MessageFold.merge(y, x)), "seed 31 round \(round)")
            XCTAssertEqual(leaf(MessageFold.merge(MessageFold.merge(x, y), z)), leaf(MessageFold.merge(x, MessageFold.merge(y, z))),
                           "seed 31 round \(round)")
            let merged = MessageFold.merge(x, y)
            XCTAssertEqual(leaf(MessageFold.merge(merged, merged)), leaf(merged), "seed 31 round \(round)")
        }
    }

    func testRejectMessagesWithUnorderedSetsOrBadOps() {
        var message = sample()
        message.reactions = [Reaction(reactor: [2], emoji: "a"), Reaction(reactor: [1], emoji: "a")]
        XCTAssertThrowsError(try MessagesNamespace.decodeRow(bytes: MessagesNamespace.rowEncoding(of: message)))
        XCTAssertThrowsError(try MessagesNamespace.decodeRow(.array([.bytes(messageID)])))
    }
}
