import CSQLite
import Foundation
import MessagesNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

final class MessagesNamespaceTests: XCTestCase {
    private let messageID = TwoDevices.id(1)
    /// The account the two devices belong to: the author of the sample (outgoing) message.
    private let account = TwoDevices.key32(0xac)

    private func sample() -> Message {
        Message(messageID: messageID, conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1_000), isOutgoing: true,
                body: "hello", senderName: "", author: account)
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
            try tx.edit(messageID, body: "edited later on A", opID: TwoDevices.id(0xe1), editedAt: TwoDevices.at(9_999), as: self.account)
        }
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.delete(messageID, scope: .me, opID: TwoDevices.id(0xd1), at: TwoDevices.at(2_000), as: self.account)
        }
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.delete(messageID, scope: .everyone, opID: TwoDevices.id(0xd2), at: TwoDevices.at(2_001), as: self.account)
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
            try tx.edit(messageID, body: "first edit (A, correct clock)", opID: TwoDevices.id(0xff), editedAt: TwoDevices.at(now), as: self.account)
        }
        try pair.sync(MessagesNamespace.self)
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.edit(messageID, body: "second edit (B, 10 minutes behind)", opID: TwoDevices.id(0x01),
                        editedAt: TwoDevices.at(now + 60 - 600), as: self.account)
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
            try tx.edit(messageID, body: "A, clock a year fast", opID: TwoDevices.id(0x01), editedAt: TwoDevices.at(40_000_000), as: self.account)
        }
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.edit(messageID, body: "B, correct clock", opID: TwoDevices.id(0xfe), editedAt: TwoDevices.at(1_000), as: self.account)
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
                                             causalOrder: random.next() % 3, editedAt: TwoDevices.at(Double(random.next() % 5)),
                                             author: random.chance(0.7) ? account : TwoDevices.key32(0xee)))
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

    // MARK: Author-only edits and deletes

    private func op(_ id: UInt8, _ action: MessageOp.Action, order: UInt64, by author: [UInt8]) -> MessageOp {
        MessageOp(opID: TwoDevices.id(id), action: action, causalOrder: order, editedAt: TwoDevices.at(2_000), author: author)
    }

    func testRejectAnEditOrADeleteForEveryoneByAnAccountThatIsNotTheAuthorOnTheLocalWritePath() throws {
        let pair = try TwoDevices()
        let stranger = TwoDevices.key32(0x5e)
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(self.sample()) }
        let before = pair.root(MessagesNamespace.self, pair.a)
        let attempts: [(String, (NamespaceTransaction<MessagesNamespace>) throws(SyncKernelError) -> Void)] = [
            ("edit by a stranger", { tx throws(SyncKernelError) in
                try tx.edit(self.messageID, body: "not yours", opID: TwoDevices.id(0xe1), editedAt: TwoDevices.at(3_000), as: stranger)
            }),
            ("delete for everyone by a stranger", { tx throws(SyncKernelError) in
                try tx.delete(self.messageID, scope: .everyone, opID: TwoDevices.id(0xd1), at: TwoDevices.at(3_000), as: stranger)
            }),
            ("edit with no author", { tx throws(SyncKernelError) in
                try tx.edit(self.messageID, body: "anonymous", opID: TwoDevices.id(0xe2), editedAt: TwoDevices.at(3_000), as: [])
            }),
            ("a raw save holding a stranger's edit", { tx throws(SyncKernelError) in
                var forged = self.sample()
                forged.ops = [self.op(0xe3, .edit(body: "forged", media: nil), order: 1, by: stranger)]
                try tx.save(forged)
            }),
        ]
        for (label, attempt) in attempts {
            XCTAssertThrowsError(try write(pair.a, attempt), label) {
                XCTAssertEqual(($0 as? SyncKernelError)?.code, .notTheAuthor, "\(label): \($0)")
            }
            XCTAssertEqual(pair.root(MessagesNamespace.self, pair.a), before, "\(label): nothing was written")
        }
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.delete(self.messageID, scope: .me, opID: TwoDevices.id(0xd2), at: TwoDevices.at(3_000), as: stranger)
        }
        XCTAssertEqual(MessageFold.effective(try XCTUnwrap(try held(pair.a))).deleted, .me,
                       "a delete for this account only is any holder's to make")
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.record(Message(messageID: TwoDevices.id(3), conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1),
                                  isOutgoing: false, body: "author unknown"))
        }
        XCTAssertThrowsError(try write(pair.a) { tx throws(SyncKernelError) in
            try tx.edit(TwoDevices.id(3), body: "x", opID: TwoDevices.id(0xe4), editedAt: TwoDevices.at(3_000), as: self.account)
        }) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .notTheAuthor, "nobody edits a message whose author is unknown") }
    }

    func testAnEditFromAnAccountThatIsNotTheAuthorIsDroppedOnApplyCountedAndReported() throws {
        let pair = try TwoDevices()
        let stranger = TwoDevices.key32(0x5e)
        var shipped = sample()
        shipped.ops = [op(0x01, .edit(body: "the author's edit", media: nil), order: 1, by: account),
                       op(0x02, .edit(body: "a stranger's edit", media: nil), order: 2, by: stranger),
                       op(0x03, .delete(.everyone), order: 3, by: stranger),
                       op(0x04, .delete(.me), order: 4, by: stranger)]
        XCTAssertEqual(MessagesNamespace.refusedOperations(in: shipped), 2)
        let response = ReconcileResponse(namespace: MessagesNamespace.name,
                                         rows: [ShippedRow(row: MessagesNamespace.rowEncoding(of: shipped), vector: nil)], tombstones: [])
        let outcome = try pair.a.apply(response)
        XCTAssertEqual(outcome.refusedOperations, 2)
        XCTAssertEqual(outcome.keysToShipBack, [messageID], "the sender gets the copy without them back")
        let stored = try XCTUnwrap(try held(pair.a))
        XCTAssertEqual(stored.ops.map(\.opID), [TwoDevices.id(0x01), TwoDevices.id(0x04)], "refused operations are never stored")
        XCTAssertEqual(MessageFold.effective(stored).deleted, .me)
        XCTAssertEqual(try pair.a.apply(response).refusedOperations, 2, "counted on every apply that meets them")

        // The same through a replica: an `operationsRefused` event names the sibling and the count.
        let replica = try Replica(device: pair.deviceB, account: TwoDevices.key32(0xac), siblings: [pair.deviceA], store: pair.b)
        _ = replica.drainActions()
        let frame = SyncFrame(account: TwoDevices.key32(0xac), schema: pair.b.namespaces.schema, body: .reconcileResponse(response))
        replica.receive(frame.encoded(), from: pair.deviceA, now: 1_000)
        let events = replica.drainActions().compactMap { action -> ReplicaEvent? in
            if case .event(let event) = action { return event }
            return nil
        }
        XCTAssertTrue(events.contains(.operationsRefused(peer: pair.deviceA, namespace: "messages", count: 2)), "\(events)")
    }

    func testTwoDevicesHoldingDifferentSenderIdentitiesConvergeToTheGreaterAndReportTheConflict() throws {
        let pair = try TwoDevices()
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(self.sample()) }
        try pair.sync(MessagesNamespace.self)
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.backfillIdentity(self.messageID, peerUserIDHash: TwoDevices.key32(5), senderName: "Ada")
        }
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.backfillIdentity(self.messageID, peerUserIDHash: TwoDevices.key32(6), senderName: "Eve")
        }
        let outcome = try XCTUnwrap(try pair.pull(MessagesNamespace.self, into: pair.a, from: pair.b))
        XCTAssertEqual(outcome.backfillConflicts, [BackfillConflict(key: messageID, fields: ["peerUserIDHash", "senderName"])],
                       "two devices disagreeing on who sent a message is reported, not settled silently")
        try pair.pull(MessagesNamespace.self, into: pair.b, from: pair.a)
        XCTAssertTrue(pair.agree(MessagesNamespace.self), "the greater of two held values wins on both, or the leaf would never converge")
        for store in [pair.a, pair.b] {
            XCTAssertEqual(try held(store)?.senderName, "Eve")
            XCTAssertEqual(try held(store)?.peerUserIDHash, TwoDevices.key32(6))
        }
        XCTAssertEqual(try pair.pull(MessagesNamespace.self, into: pair.a, from: pair.b)?.backfillConflicts ?? [], [],
                       "once they agree there is nothing to report")

        // Through a replica, the merge reports a `backfillConflict` event naming the sibling, the key and the fields.
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.record(Message(messageID: TwoDevices.id(5), conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1),
                                  isOutgoing: false, body: "c", senderName: "Mallory"))
        }
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.record(Message(messageID: TwoDevices.id(5), conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1),
                                  isOutgoing: false, body: "c", senderName: "Alice"))
        }
        let replica = try Replica(device: pair.deviceB, account: TwoDevices.key32(0xac), siblings: [pair.deviceA], store: pair.b)
        _ = replica.drainActions()
        for response in try pair.a.respond(toKeys: [TwoDevices.id(5)], namespace: MessagesNamespace.name) {
            let frame = SyncFrame(account: TwoDevices.key32(0xac), schema: pair.b.namespaces.schema, body: .reconcileResponse(response))
            replica.receive(frame.encoded(), from: pair.deviceA, now: 1_000)
        }
        let events = replica.drainActions().compactMap { action -> ReplicaEvent? in
            if case .event(let event) = action { return event }
            return nil
        }
        XCTAssertTrue(events.contains(.backfillConflict(peer: pair.deviceA, namespace: "messages", key: TwoDevices.id(5),
                                                        fields: ["senderName"])), "\(events)")
        try write(pair.a) { tx throws(SyncKernelError) in
            try tx.record(Message(messageID: TwoDevices.id(4), conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1),
                                  isOutgoing: false, body: "b", senderName: "Bob"))
        }
        try write(pair.b) { tx throws(SyncKernelError) in
            try tx.record(Message(messageID: TwoDevices.id(4), conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1),
                                  isOutgoing: false, body: "b"))
        }
        XCTAssertEqual(try pair.pull(MessagesNamespace.self, into: pair.b, from: pair.a)?.backfillConflicts ?? [], [],
                       "filling an empty field is no conflict")
    }

    /// A store written in row format 1 (before authors) opens: its messages and operations get an
    /// empty author, their recorded edits stay, and nobody may edit them any more.
    func testAStoreOfRowFormatOneMigratesWithAuthorsUnknown() throws {
        let directory = NSTemporaryDirectory() + "messages-v1-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
        let device = try DeviceKeyPair(seed: [UInt8](repeating: 0xa, count: 32)).deviceID
        var legacy = Message(messageID: messageID, conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1_000), isOutgoing: true,
                             body: "hello")
        legacy.ops = [op(0x01, .edit(body: "edited before authors", media: nil), order: 1, by: [])]
        let fresh = try KernelStore(path: path, namespaces: NamespaceSet([MessagesNamespace.self]))
        fresh.close()
        // What a build of row format 1 left: the row in that format, the format recorded, no structure.
        var writer = CanonicalWriter()
        MessagesNamespace.schemaV1.writeRowBody(legacy, &writer)
        var db: OpaquePointer?
        XCTAssertEqual(sqlite3_open(path, &db), SQLITE_OK)
        var statement: OpaquePointer?
        XCTAssertEqual(sqlite3_prepare_v2(db, "INSERT INTO ns_messages(key, row) VALUES(?, ?)", -1, &statement, nil), SQLITE_OK)
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_blob(statement, 1, messageID, Int32(messageID.count), transient)
        sqlite3_bind_blob(statement, 2, writer.bytes, Int32(writer.bytes.count), transient)
        XCTAssertEqual(sqlite3_step(statement), SQLITE_DONE)
        sqlite3_finalize(statement)
        let format = MessagesNamespace.schemaV1.rowFormatID
        for sql in ["UPDATE sk_row_format SET format = '\(format)' WHERE ns = 'messages'", "DELETE FROM sk_structure"] {
            XCTAssertEqual(sqlite3_exec(db, sql, nil, nil, nil), SQLITE_OK, sql)
        }
        sqlite3_close(db)

        let store = try KernelStore(path: path, namespaces: NamespaceSet([MessagesNamespace.self]))
        try store.configureDevice(device)
        let migrated = try XCTUnwrap(try store.row(MessagesNamespace.self, key: messageID))
        XCTAssertEqual(MessagesNamespace.rowEncoding(of: migrated), MessagesNamespace.rowEncoding(of: legacy),
                       "the same message, its author and its op's author empty")
        XCTAssertEqual(MessageFold.effective(migrated).body, "edited before authors", "edits recorded before authors stay")
        XCTAssertThrowsError(try store.write(MessagesNamespace.self) { tx throws(SyncKernelError) in
            try tx.edit(self.messageID, body: "x", opID: TwoDevices.id(0x02), editedAt: TwoDevices.at(3_000), as: self.account)
        }) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .notTheAuthor) }
        try store.verifyStructures()
    }

    func testRejectMessagesWithUnorderedSetsOrBadOps() {
        var message = sample()
        message.reactions = [Reaction(reactor: [2], emoji: "a"), Reaction(reactor: [1], emoji: "a")]
        XCTAssertThrowsError(try MessagesNamespace.decodeRow(bytes: MessagesNamespace.rowEncoding(of: message)))
        XCTAssertThrowsError(try MessagesNamespace.decodeRow(.array([.bytes(messageID)])))
    }
}
