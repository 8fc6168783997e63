import ContactsNamespace
import Foundation
import MemoryNamespace
import MessagesNamespace
import OtherNamespaces
import SettingsNamespace
import SyncKernel
import XCTest

/// Hostile peer values in the namespaces: a message op's causal counter (bounded like a vector
/// counter: refused on receipt above `MessageOp.maxCausalOrder`, a typed error when the next edit
/// cannot count past it), dates beyond the kernel's bound in shipped rows of each rule, and the
/// values no arithmetic touches (stored as sent, harmless to later local operations).
final class HostileNamespaceValueTests: XCTestCase {
    private let messageID = TwoDevices.id(1)
    /// The account that sent the test messages, and so may edit them.
    private let author = TwoDevices.key32(0xac)

    /// The messages declaration as a build before the causal bound wrote it: the same fields and
    /// row format, no validation, so it stores what the current build refuses.
    enum OlderBuildMessages: SyncNamespace {
        static let name = MessagesNamespace.name
        static let schema = RowSchema<Message>(
            blank: Message(messageID: [], conversationID: [], sentAt: .distantPast, isOutgoing: false, body: ""), key: \.messageID, [
                .hashed("messageID", \.messageID, .bytes(count: 16)),
                .group("sent", [
                    .member("conversationID", \.conversationID, .bytes()),
                    .member("sentAt", \.sentAt, .date),
                    .member("isOutgoing", \.isOutgoing, .bool),
                    .member("body", \.body, .text),
                    .member("media", \.media, .optional(.text)),
                    .member("replyTo", \.replyTo, .optional(.bytes())),
                    .member("author", \.author, .bytes()),
                ], merge: .greaterEncoding),
                .hashed("senderName", \.senderName, .text, merge: .fillIfEmpty),
                .hashed("peerUserIDHash", \.peerUserIDHash, .optional(.bytes(), emptyIsAbsent: true), merge: .fillIfEmpty),
                .hashed("isDelivered", \.isDelivered, .bool, merge: .or),
                .hashed("reactions", \.reactions, .array(Reaction.codec), merge: .sortedUnion()),
                .hashed("ops", \.ops, .array(MessageOp.codec), merge: .custom("opUnion", MessageFold.unionOps)),
                .excluded("observedAt", \.observedAt, .optional(.date), .perDevice, reason: "per device"),
                .excluded("peerPubkey", \.peerPubkey, .optional(.bytes()), .perDevice, reason: "per device"),
                .excluded("localRowID", \.localRowID, .optional(.int64), .localIdentifier, reason: "a local row id"),
            ])
        static let mergeRule = MergeRule<Message>.join(normalize: MessageFold.normalized)
    }

    private func message(_ id: [UInt8], orders: [UInt64]) -> Message {
        var message = Message(messageID: id, conversationID: TwoDevices.id(2), sentAt: TwoDevices.at(1_000), isOutgoing: false,
                              body: "hello", author: author)
        message.ops = orders.enumerated().map { index, order in
            MessageOp(opID: [UInt8](repeating: UInt8(index + 1), count: 16), action: .edit(body: "edit \(index)", media: nil),
                      causalOrder: order, editedAt: TwoDevices.at(2_000), author: author)
        }
        return message
    }

    /// The rows of `N` on `store` as bytes, and its root: what a refused value must leave alone.
    private func state<N: SyncNamespace>(_ namespace: N.Type, _ store: KernelStore) throws -> [[UInt8]] {
        let digest = store.stateDigest()
        let root = digest.namespaces.firstIndex(of: N.name).map { digest.roots[$0] } ?? []
        return try store.rows(namespace).map(N.rowEncoding(of:)) + [root]
    }

    private func assertCode<T>(_ code: SyncKernelError.Code, _ message: String, file: StaticString = #filePath, line: UInt = #line,
                               _ body: () throws -> T) {
        XCTAssertThrowsError(try body(), message, file: file, line: line) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, code, "\(message): \($0)", file: file, line: line)
        }
    }

    private func write(_ store: KernelStore, _ body: (NamespaceTransaction<MessagesNamespace>) throws(SyncKernelError) -> Void) throws {
        try store.write(MessagesNamespace.self, body)
    }

    // MARK: Message causal counters

    /// The reproducer: a shipped message with an op at `UInt64.max` used to be stored, and the
    /// next edit trapped in `MessageFold.nextCausalOrder` (`max + 1`). The message is refused on
    /// receipt now, and nothing of the response is stored.
    func testRejectAShippedMessageWithAnOpAboveTheCausalBound() throws {
        let pair = try TwoDevices()
        try write(pair.a) { tx throws(SyncKernelError) in try tx.record(self.message(TwoDevices.id(9), orders: [1])) }
        let before = try state(MessagesNamespace.self, pair.a)
        for order in [UInt64.max, MessageOp.maxCausalOrder + 1] {
            let hostile = MessagesNamespace.rowEncoding(of: message(messageID, orders: [3, order]))
            assertCode(.counterOutOfRange, "decode, order \(order)") { try MessagesNamespace.decodeRow(bytes: hostile) }
            let fine = MessagesNamespace.rowEncoding(of: message(TwoDevices.id(0), orders: [1]))
            let response = ReconcileResponse(namespace: MessagesNamespace.name,
                                             rows: [ShippedRow(row: fine, vector: nil), ShippedRow(row: hostile, vector: nil)], tombstones: [])
            assertCode(.counterOutOfRange, "apply, order \(order)") { try pair.a.apply(response) }
            XCTAssertEqual(try state(MessagesNamespace.self, pair.a), before, "order \(order): nothing of the response is stored")
        }
        XCTAssertNoThrow(try MessagesNamespace.decodeRow(bytes: MessagesNamespace.rowEncoding(of: message(messageID,
                                                                                                         orders: [MessageOp.maxCausalOrder]))))
    }

    /// A message whose largest op is at the bound (valid on the wire) cannot be edited or deleted
    /// any more: a typed error for that write, nothing written, never a trap.
    func testAMessageAtTheCausalBoundFailsTheNextEditAndDeleteWithATypedError() throws {
        let pair = try TwoDevices()
        let held = message(messageID, orders: [2, MessageOp.maxCausalOrder])
        try write(pair.b) { tx throws(SyncKernelError) in try tx.record(held) }
        try pair.sync(MessagesNamespace.self)
        XCTAssertTrue(pair.agree(MessagesNamespace.self), "a counter at the bound syncs")
        let before = try state(MessagesNamespace.self, pair.a)
        assertCode(.counterOutOfRange, "edit") {
            try write(pair.a) { tx throws(SyncKernelError) in
                try tx.edit(self.messageID, body: "again", opID: TwoDevices.id(0x70), editedAt: TwoDevices.at(3_000), as: self.author)
            }
        }
        assertCode(.counterOutOfRange, "delete") {
            try write(pair.a) { tx throws(SyncKernelError) in
                try tx.delete(self.messageID, scope: .everyone, opID: TwoDevices.id(0x71), at: TwoDevices.at(3_000), as: self.author)
            }
        }
        XCTAssertEqual(try state(MessagesNamespace.self, pair.a), before)
        assertCode(.counterOutOfRange, "in memory, UInt64.max") { try MessageFold.nextCausalOrder(after: message(messageID, orders: [.max])) }
        XCTAssertEqual(try MessageFold.nextCausalOrder(after: message(messageID, orders: [MessageOp.maxCausalOrder - 1, 4])),
                       MessageOp.maxCausalOrder)
        XCTAssertEqual(try MessageFold.nextCausalOrder(after: message(messageID, orders: [])), 1)
    }

    /// A store an older build wrote holds a message with an op at `UInt64.max`: it opens, and the
    /// row, which no longer reads under today's bound, is quarantined where it is first read
    /// (kept aside and reported, its item out of the digest, so a sibling's good copy can take
    /// its place); the edit and delete of it then find no message, a typed error, never a trap.
    func testAMessageAnOlderBuildStoredAtUInt64MaxIsQuarantinedNotATrap() throws {
        let directory = NSTemporaryDirectory() + "hostile-messages-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/store.sqlite"
        let device = try DeviceKeyPair(seed: [UInt8](repeating: 0xa, count: 32)).deviceID
        let older = try KernelStore(path: path, namespaces: NamespaceSet([OlderBuildMessages.self]))
        try older.configureDevice(device)
        try older.write(OlderBuildMessages.self) { tx throws(SyncKernelError) in try tx.save(self.message(self.messageID, orders: [1, .max])) }
        let root = older.stateDigest().roots
        older.close()
        let store = try KernelStore(path: path, namespaces: NamespaceSet([MessagesNamespace.self]))
        try store.configureDevice(device)
        XCTAssertEqual(store.stateDigest().roots, root, "the store opens with its structure")
        assertCode(.namespaceRefused, "edit") {
            try write(store) { tx throws(SyncKernelError) in
                try tx.edit(self.messageID, body: "x", opID: TwoDevices.id(0x70), editedAt: TwoDevices.at(1), as: self.author)
            }
        }
        XCTAssertNil(try store.row(MessagesNamespace.self, key: messageID), "a read outside a write quarantines it")
        let quarantined = try store.quarantinedRows()
        XCTAssertEqual(quarantined.map(\.key), [messageID], "the unreadable row is kept aside")
        XCTAssertNotEqual(store.stateDigest().roots, root, "its item left the digest")
        assertCode(.namespaceRefused, "delete") {
            try write(store) { tx throws(SyncKernelError) in
                try tx.delete(self.messageID, scope: .me, opID: TwoDevices.id(0x71), at: TwoDevices.at(1), as: self.author)
            }
        }
        XCTAssertEqual(try store.quarantinedRows().count, 1, "quarantined once")
    }

    // MARK: Dates

    /// A date beyond `CanonicalWriter.maxDateSeconds` in a shipped row is refused under every
    /// rule (join, causal, insert-if-absent) and nothing of the response is stored.
    func testRejectShippedRowsWithADateBeyondTheBound() throws {
        let pair = try TwoDevices()
        let beyond = CBORValue.tagged(1, .unsigned(UInt64(CanonicalWriter.maxDateSeconds) + 1))
        /// `row`'s encoding with item `index` (a date) replaced by one beyond the bound.
        func hostile(_ encoding: [UInt8], _ path: [Int]) throws -> [UInt8] {
            func replaced(_ value: CBORValue, _ path: ArraySlice<Int>) throws -> CBORValue {
                guard let index = path.first else { return beyond }
                var items = try value.array()
                items[index] = try replaced(items[index], path.dropFirst())
                return .array(items)
            }
            return try replaced(CBORReader.decode(encoding), path[...]).encoded()
        }
        func check<N: SyncNamespace>(_ namespace: N.Type, _ row: N.Row, _ path: [Int], causal: Bool) throws {
            let before = try state(namespace, pair.a)
            let bytes = try hostile(N.rowEncoding(of: row), path)
            assertCode(.limitExceeded, "\(N.name): decode") { try N.decodeRow(bytes: bytes) }
            let response = ReconcileResponse(namespace: N.name, rows: [ShippedRow(row: bytes, vector: causal ? VersionVector() : nil)],
                                             tombstones: [])
            assertCode(.limitExceeded, "\(N.name): apply") { try pair.a.apply(response) }
            XCTAssertEqual(try state(namespace, pair.a), before, N.name)
        }
        try check(MessagesNamespace.self, message(messageID, orders: []), [1, 1], causal: false)
        try check(PlansNamespace.self, Plan(planID: TwoDevices.id(3), title: "t", steps: [], dueAt: TwoDevices.at(5),
                                            updatedAt: TwoDevices.at(6)), [3], causal: true)
        try check(MemoryNamespace.self, MemoryEvent(id: TwoDevices.id(4), kind: .observation, text: "x", occurredAt: TwoDevices.at(7)),
                  [3], causal: false)
        try check(ContactsNamespace.self, .relationship(RelationshipState(pubkey: TwoDevices.key32(5), stage: .connected,
                                                                          updatedAt: TwoDevices.at(8))), [3], causal: true)
    }

    // MARK: Values no arithmetic touches

    /// Extreme integers in fields the namespaces only store, hash or compare (a file's size, a
    /// ledger epoch, a roster's stamp, a read mark that is not one) travel and are stored as
    /// sent, and the local operations that read them afterwards neither trap nor misbehave.
    func testExtremeValuesNoArithmeticTouchesSyncAsSentAndStayHarmless() throws {
        let pair = try TwoDevices()
        let pubkey = TwoDevices.key32(6)
        try pair.b.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(FileEntry(fileID: TwoDevices.id(1), name: "min", size: .min, contentHash: TwoDevices.key32(1), updatedAt: TwoDevices.at(1)))
            try tx.save(FileEntry(fileID: TwoDevices.id(2), name: "max", size: .max, contentHash: TwoDevices.key32(2), updatedAt: TwoDevices.at(1)))
        }
        try pair.b.write(KTIdentityLedgerNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(LedgerEntry(userIDHash: [1], pubkey: [2], epoch: .max))
        }
        try pair.b.write(PeerDevicesNamespace.self) { tx throws(SyncKernelError) in
            try tx.receiveAdvertisement(PeerDeviceRoster(contactPubkey: pubkey, devices: [.init(key: [1], label: "far future")],
                                                         lastAdvertisedAt: .max))
        }
        try pair.b.write(SettingsNamespace.self) { tx throws(SyncKernelError) in
            try tx.set(ReadState.key(conversation: "garbled"), to: "not a mark!!", now: .max)
            try tx.set(ReadState.key(conversation: "last"), to: ReadState.encode(seconds: .max), now: .min)
        }
        try pair.sync(FileIndexNamespace.self)
        try pair.sync(KTIdentityLedgerNamespace.self)
        try pair.sync(PeerDevicesNamespace.self)
        try pair.sync(SettingsNamespace.self)
        XCTAssertEqual(try pair.a.rows(FileIndexNamespace.self).map(\.size), [.min, .max])
        XCTAssertEqual(try pair.a.rows(KTIdentityLedgerNamespace.self).map(\.epoch), [.max])
        try pair.a.write(PeerDevicesNamespace.self) { tx throws(SyncKernelError) in
            try tx.receiveAdvertisement(PeerDeviceRoster(contactPubkey: pubkey, devices: [], lastAdvertisedAt: .max))
            try tx.receiveAdvertisement(PeerDeviceRoster(contactPubkey: pubkey, devices: [], lastAdvertisedAt: 5))
        }
        XCTAssertEqual(try pair.a.row(PeerDevicesNamespace.self, key: pubkey)?.devices.map(\.label), ["far future"],
                       "an equal or older stamp changes nothing")
        try pair.a.write(SettingsNamespace.self) { tx throws(SyncKernelError) in
            try tx.markRead(conversation: "garbled", at: 100, now: 1)
            try tx.markRead(conversation: "last", at: .max, now: 1)
            try tx.markRead(conversation: "last", at: .min, now: 1)
        }
        XCTAssertEqual(try pair.a.row(SettingsNamespace.self, key: Array(ReadState.key(conversation: "garbled").utf8))?.value,
                       ReadState.encode(seconds: 100), "a value that is not a mark is replaced")
        XCTAssertEqual(try pair.a.row(SettingsNamespace.self, key: Array(ReadState.key(conversation: "last").utf8))?.value,
                       "999999999999", "the largest mark stays")
        try pair.sync(SettingsNamespace.self)
        XCTAssertTrue(pair.agree(SettingsNamespace.self) && pair.agree(PeerDevicesNamespace.self) && pair.agree(FileIndexNamespace.self))
    }
}
