import ContactsNamespace
import Foundation
import MemoryNamespace
import MessagesNamespace
import NotebookNamespace
import OtherNamespaces
import SettingsNamespace
import SyncKernel
import XCTest

/// The fixed sample rows behind `Fixtures/golden/<name>.golden`, one function per namespace.
///
/// Every row is built only from public initialisers and public mutable properties, from fixed
/// bytes and fixed dates, so the same code always yields the same rows. Together the rows of a
/// namespace cover each field with its optionals absent and present, empty strings and byte
/// strings where the field accepts them, non-ASCII text, every enum case, and negative or zero
/// integers and dates where the type allows them. Changing a row here changes its fixture: the
/// rows and the files describe the same values and must only ever change together, on purpose.
enum GoldenRows {
    /// Sample rows whose encoding stays pinned but which the namespace now refuses to decode, by
    /// namespace name and label, with the code it refuses them with. `deleted-for-me` pins an op
    /// whose causal counter is `UInt64.max`; since `MessageOp.maxCausalOrder` (2^63 - 1) such a
    /// message is refused on receipt (`counterOutOfRange`), because the next edit of it could not
    /// count past it. Its bytes, leaf and the namespace root are still checked line by line.
    static let refusedOnDecode: [String: [String: SyncKernelError.Code]] = [
        "messages": ["deleted-for-me": .counterOutOfRange],
    ]

    /// `count` bytes counting up from `start` (wrapping).
    static func bytes(from start: UInt8, count: Int) -> [UInt8] {
        (0..<count).map { start &+ UInt8(truncatingIfNeeded: $0) }
    }

    /// `count` copies of `byte`.
    static func repeated(_ byte: UInt8, count: Int) -> [UInt8] {
        [UInt8](repeating: byte, count: count)
    }

    /// The date `seconds` after 1970.
    static func at(_ seconds: TimeInterval) -> Date {
        Date(timeIntervalSince1970: seconds)
    }

    /// A note body digest as the notebook stamps it: SHA-256 under `synckernel.notebook.body` of
    /// the UTF-8 body. Spelled out here so the rows depend on no namespace API beyond the pinned ones.
    static func noteBodyDigest(_ body: String) -> [UInt8] {
        SHA256.hash(domain: Array("synckernel.notebook.body".utf8), Array(body.utf8))
    }

    static func notebook() -> [(label: String, row: Note)] {
        let resident = Note(id: bytes(from: 0x00, count: 16), title: "Golden", body: "body", tags: ["a", "b"],
                            createdAt: at(1_700_000_000.75), updatedAt: at(1_700_000_100))
        var offloaded = Note(id: bytes(from: 0x10, count: 16), title: "日本", body: "", tags: [],
                             createdAt: at(0), updatedAt: at(1_700_000_200.5))
        offloaded.contentHash = noteBodyDigest("offloaded body é")
        offloaded.bodyOffloaded = true
        offloaded.offloadHolderPubkey = repeated(0x9a, count: 32)
        let empty = Note(id: bytes(from: 0x20, count: 16), title: "", body: "", tags: [""],
                         createdAt: at(-1.25), updatedAt: at(1_700_000_300))
        var stampedResident = Note(id: bytes(from: 0x30, count: 16), title: "Zoë 🙂", body: "🙂 note, café",
                                   tags: ["é", "日本", "🏷️"], createdAt: at(1_600_000_000), updatedAt: at(1_700_000_400.999))
        stampedResident.contentHash = noteBodyDigest("🙂 note, café")
        stampedResident.offloadHolderPubkey = []
        return [("resident", resident), ("offloaded", offloaded), ("empty", empty), ("stamped-resident", stampedResident)]
    }

    static func messages() -> [(label: String, row: Message)] {
        let reactorA = repeated(0xa1, count: 32)
        let reactorB = repeated(0xb2, count: 32)
        let plain = Message(messageID: bytes(from: 0x40, count: 16), conversationID: bytes(from: 0xc0, count: 16),
                            sentAt: at(1_700_000_000.75), isOutgoing: false, body: "hello", author: repeated(0x21, count: 32))
        let emptyHash = Message(messageID: bytes(from: 0x50, count: 16), conversationID: [], sentAt: at(0),
                                isOutgoing: true, body: "", media: "", replyTo: [], senderName: "Zoë", peerUserIDHash: [])
        var full = Message(messageID: bytes(from: 0x60, count: 16), conversationID: bytes(from: 0xc0, count: 16),
                           sentAt: at(1_700_000_100), isOutgoing: false, body: "日本語のメッセージ 🙂",
                           media: "{\"kind\":\"photo\",\"name\":\"é.jpg\"}", replyTo: bytes(from: 0x40, count: 16),
                           senderName: "日本 😀", peerUserIDHash: repeated(0x33, count: 32), author: repeated(0x33, count: 32))
        full.reactions = [Reaction(reactor: reactorB, emoji: "❤️"), Reaction(reactor: reactorA, emoji: "👍"),
                          Reaction(reactor: reactorA, emoji: "😀")].sorted()
        full.isDelivered = true
        full.ops = [
            MessageOp(opID: bytes(from: 0x70, count: 16), action: .edit(body: "edited é", media: nil),
                      causalOrder: 1, editedAt: at(1_700_000_200.5), author: repeated(0x33, count: 32)),
            MessageOp(opID: bytes(from: 0x71, count: 16), action: .edit(body: "", media: "{}"),
                      causalOrder: 2, editedAt: at(1_700_000_300), author: repeated(0x33, count: 32)),
        ]
        full.observedAt = at(1_700_000_500.25)
        full.peerPubkey = repeated(0x44, count: 32)
        full.localRowID = 7
        var deletedForMe = Message(messageID: bytes(from: 0x80, count: 16), conversationID: bytes(from: 0xd0, count: 16),
                                   sentAt: at(-1.5), isOutgoing: true, body: "", senderName: "",
                                   peerUserIDHash: repeated(0x55, count: 32), author: repeated(0xac, count: 32))
        deletedForMe.ops = [
            MessageOp(opID: bytes(from: 0x90, count: 16), action: .edit(body: "", media: nil),
                      causalOrder: 0, editedAt: at(0), author: repeated(0xac, count: 32)),
            MessageOp(opID: bytes(from: 0x91, count: 16), action: .delete(.me),
                      causalOrder: UInt64.max, editedAt: at(1_700_000_600), author: repeated(0xac, count: 32)),
        ]
        deletedForMe.localRowID = -1
        deletedForMe.observedAt = at(0)
        deletedForMe.peerPubkey = []
        var deletedForEveryone = Message(messageID: bytes(from: 0xa0, count: 16), conversationID: bytes(from: 0xd0, count: 16),
                                         sentAt: at(1_700_000_700), isOutgoing: false, body: "", author: repeated(0xa5, count: 32))
        deletedForEveryone.ops = [
            MessageOp(opID: bytes(from: 0xb0, count: 16), action: .delete(.everyone),
                      causalOrder: 3, editedAt: at(1_700_000_800.75), author: repeated(0xa5, count: 32)),
        ]
        deletedForEveryone.localRowID = 0
        return [("plain", plain), ("empty-hash", emptyHash), ("full", full),
                ("deleted-for-me", deletedForMe), ("deleted-for-everyone", deletedForEveryone)]
    }

    static func memory() -> [(label: String, row: MemoryEvent)] {
        let conversation = bytes(from: 0xe0, count: 16)
        return [
            ("observation", MemoryEvent(id: bytes(from: 0x00, count: 16), kind: .observation, text: "remember: café",
                                        occurredAt: at(1_700_000_000.75))),
            ("summary", MemoryEvent(id: bytes(from: 0x10, count: 16), kind: .summary(conversation: conversation), text: "",
                                    occurredAt: at(0), origin: .synced)),
            ("buried", MemoryEvent(id: bytes(from: 0x20, count: 16), kind: .buried(conversation: conversation),
                                   text: "日本 🙂", occurredAt: at(-1))),
            ("calendar", MemoryEvent(id: bytes(from: 0x30, count: 16), kind: .observation, text: "Dentist é",
                                     occurredAt: at(1_700_000_100.5), origin: .deviceDerived(source: "calendar"))),
            ("derived-empty-source", MemoryEvent(id: bytes(from: 0x40, count: 16), kind: .summary(conversation: conversation),
                                                 text: "s", occurredAt: at(1_700_000_200),
                                                 origin: .deviceDerived(source: ""))),
        ]
    }

    static func contacts() -> [(label: String, row: ContactRecord)] {
        let alice = repeated(0x0a, count: 32)
        let bob = repeated(0x0b, count: 32)
        let carol = bytes(from: 0xc0, count: 32)
        let dave = bytes(from: 0xd0, count: 32)
        return [
            ("contact-unlinked", .contact(Contact(pubkey: alice, userIDHash: repeated(0x1a, count: 32),
                                                  accountSigningPubkey: repeated(0x2a, count: 32),
                                                  channelKey: repeated(0x3a, count: 32), name: "Zoë 日本 🙂",
                                                  updatedAt: at(1_700_000_000.75)))),
            ("contact-linked", .contact(Contact(pubkey: bob, userIDHash: [], accountSigningPubkey: repeated(0x2b, count: 32),
                                                channelKey: [], name: "", updatedAt: at(0),
                                                systemContactIdentifier: "AB12-é:ABPerson"))),
            ("relationship-none", .relationship(RelationshipState(pubkey: carol, stage: .none, updatedAt: at(-2.5)))),
            ("relationship-invited", .relationship(RelationshipState(pubkey: dave, stage: .invited,
                                                                     updatedAt: at(1_700_000_100)))),
            ("relationship-connected", .relationship(RelationshipState(pubkey: alice, stage: .connected,
                                                                       updatedAt: at(1_700_000_200.25)))),
            ("relationship-blocked", .relationship(RelationshipState(pubkey: bob, stage: .blocked,
                                                                     updatedAt: at(1_700_000_300)))),
        ]
    }

    static func peerDevices() -> [(label: String, row: PeerDeviceRoster)] {
        let devices = [
            PeerDeviceRoster.Device(key: repeated(0xf0, count: 32), label: "Phone"),
            PeerDeviceRoster.Device(key: repeated(0x01, count: 32), label: "ノートパソコン"),
            PeerDeviceRoster.Device(key: repeated(0xf0, count: 32), label: "duplicate key, dropped"),
            PeerDeviceRoster.Device(key: repeated(0x80, count: 32), label: ""),
        ]
        return [
            ("three-devices", PeerDeviceRoster(contactPubkey: repeated(0x0a, count: 32), devices: devices,
                                               lastAdvertisedAt: 1_700_000_000)),
            ("no-devices", PeerDeviceRoster(contactPubkey: repeated(0x0b, count: 32), devices: [], lastAdvertisedAt: 0)),
            ("odd-keys-min-stamp", PeerDeviceRoster(contactPubkey: repeated(0x0c, count: 32),
                                                    devices: [PeerDeviceRoster.Device(key: [], label: "empty key é"),
                                                              PeerDeviceRoster.Device(key: [0x07], label: "🙂")],
                                                    lastAdvertisedAt: Int64.min)),
            ("max-stamp", PeerDeviceRoster(contactPubkey: repeated(0x0d, count: 32),
                                           devices: [PeerDeviceRoster.Device(key: repeated(0x22, count: 32), label: "Tablet")],
                                           lastAdvertisedAt: Int64.max)),
            ("negative-stamp", PeerDeviceRoster(contactPubkey: repeated(0x0e, count: 32), devices: [],
                                                lastAdvertisedAt: -5)),
        ]
    }

    static func settings() -> [(label: String, row: Setting)] {
        [
            ("theme", Setting(key: "theme", value: "dark", updatedAt: 1_700_000_000)),
            ("empty-value", Setting(key: "greeting", value: "", updatedAt: 0)),
            ("non-ascii", Setting(key: "名前", value: "Zoë 🙂", updatedAt: -7)),
            ("read-mark", Setting(key: "read.conv-1", value: "001700000000", updatedAt: Int64.max)),
        ]
    }

    static func saga() -> [(label: String, row: SagaEntry)] {
        [
            ("chapters", SagaEntry(id: bytes(from: 0x00, count: 16), title: "Saga é",
                                   chapters: ["One", "二", "🙂 three"], updatedAt: at(1_700_000_000.75))),
            ("empty", SagaEntry(id: bytes(from: 0x10, count: 16), title: "", chapters: [], updatedAt: at(0))),
            ("empty-chapter", SagaEntry(id: bytes(from: 0x20, count: 16), title: "日本", chapters: [""],
                                        updatedAt: at(-1.5))),
        ]
    }

    static func plans() -> [(label: String, row: Plan)] {
        [
            ("no-due-no-steps", Plan(planID: bytes(from: 0x00, count: 16), title: "", steps: [], dueAt: nil,
                                     updatedAt: at(1_700_000_000))),
            ("due-with-steps", Plan(planID: bytes(from: 0x10, count: 16), title: "Trip ✈️ é",
                                    steps: [Plan.Step(text: "Buy milk", done: false), Plan.Step(text: "日本へ行く", done: true),
                                            Plan.Step(text: "", done: false)],
                                    dueAt: at(1_700_086_400.25), updatedAt: at(1_700_000_000.75))),
            ("due-at-epoch", Plan(planID: bytes(from: 0x20, count: 16), title: "x", steps: [Plan.Step(text: "x", done: true)],
                                  dueAt: at(0), updatedAt: at(-1))),
        ]
    }

    static func fileIndex() -> [(label: String, row: FileEntry)] {
        [
            ("resident", FileEntry(fileID: bytes(from: 0x00, count: 16), name: "a é.pdf", size: 1024,
                                   contentHash: repeated(0xc1, count: 32), updatedAt: at(1_700_000_000.75),
                                   localPath: "/files/a é.pdf")),
            ("pointer", FileEntry(fileID: bytes(from: 0x10, count: 16), name: "", size: 0,
                                  contentHash: repeated(0xc2, count: 32), updatedAt: at(0),
                                  holderPubkey: repeated(0x9b, count: 32))),
            ("neither", FileEntry(fileID: bytes(from: 0x20, count: 16), name: "日本.txt", size: Int64.max,
                                  contentHash: repeated(0xc3, count: 32), updatedAt: at(1_700_000_100))),
            ("empty-residency", FileEntry(fileID: bytes(from: 0x30, count: 16), name: "🙂", size: -1,
                                          contentHash: repeated(0xc4, count: 32), updatedAt: at(-0.5),
                                          localPath: "", holderPubkey: [])),
        ]
    }

    static func ktIdentityLedger() -> [(label: String, row: LedgerEntry)] {
        [
            ("unobserved", LedgerEntry(userIDHash: repeated(0x1a, count: 32), pubkey: repeated(0x2a, count: 32), epoch: 0)),
            ("observed", LedgerEntry(userIDHash: repeated(0x1a, count: 32), pubkey: repeated(0x2b, count: 32), epoch: 1_700,
                                     observedAt: at(1_700_000_000.75))),
            ("empty-max-epoch", LedgerEntry(userIDHash: [], pubkey: [], epoch: UInt64.max, observedAt: at(0))),
        ]
    }

    static func blocks() -> [(label: String, row: BlockEntry)] {
        [
            ("blocked", BlockEntry(userIDHash: repeated(0x1a, count: 32), isBlocked: true, updatedAt: at(1_700_000_000.75))),
            ("unblocked", BlockEntry(userIDHash: repeated(0x1b, count: 32), isBlocked: false, updatedAt: at(0))),
            ("short-hash", BlockEntry(userIDHash: [0x01], isBlocked: true, updatedAt: at(-1.5))),
        ]
    }

    static func posts() -> [(label: String, row: Post)] {
        let first = bytes(from: 0x00, count: 16)
        return [
            ("original", Post(postID: first, body: "First post, café", publishedAt: at(1_700_000_000.75))),
            ("correction", Post(postID: bytes(from: 0x10, count: 16), body: "Correction 日本", publishedAt: at(1_700_000_100),
                                supersedes: first, isRetraction: false)),
            ("retraction", Post(postID: bytes(from: 0x20, count: 16), body: "", publishedAt: at(0), supersedes: first,
                                isRetraction: true)),
            ("empty-supersedes", Post(postID: bytes(from: 0x30, count: 16), body: "🙂", publishedAt: at(-1),
                                      supersedes: [], isRetraction: false)),
        ]
    }

    static func agentConversations() -> [(label: String, row: AgentTurn)] {
        let conversation = bytes(from: 0xe0, count: 16)
        return [
            ("user-uncounted", AgentTurn(turnID: bytes(from: 0x00, count: 16), conversationID: conversation, role: .user,
                                         text: "Hello agent, café?", at: at(1_700_000_000.75))),
            ("agent-counted", AgentTurn(turnID: bytes(from: 0x10, count: 16), conversationID: conversation, role: .agent,
                                        text: "日本 🙂", at: at(1_700_000_001), localTokenCount: 1_234)),
            ("agent-empty-zero", AgentTurn(turnID: bytes(from: 0x20, count: 16), conversationID: conversation, role: .agent,
                                           text: "", at: at(0), localTokenCount: 0)),
            ("user-negative-count", AgentTurn(turnID: bytes(from: 0x30, count: 16), conversationID: bytes(from: 0xf0, count: 16),
                                              role: .user, text: "é", at: at(-0.25), localTokenCount: -1)),
        ]
    }
}

/// The sample rows keep what the golden files rely on: distinct labels and keys per namespace,
/// rows the namespace accepts (except those `GoldenRows.refusedOnDecode` lists, refused with
/// their code), and the edges the files claim to cover.
final class GoldenRowsTests: XCTestCase {
    private func check<N: SyncNamespace>(_ namespace: N.Type, _ rows: [(label: String, row: N.Row)],
                                         file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertGreaterThanOrEqual(rows.count, 3, N.name, file: file, line: line)
        XCTAssertEqual(Set(rows.map(\.label)).count, rows.count, "\(N.name): labels are unique", file: file, line: line)
        XCTAssertEqual(Set(rows.map { N.key(of: $0.row) }).count, rows.count, "\(N.name): keys are unique", file: file, line: line)
        let refused = GoldenRows.refusedOnDecode[N.name] ?? [:]
        XCTAssertTrue(Set(refused.keys).isSubset(of: rows.map(\.label)), "\(N.name): refusals name sample rows", file: file, line: line)
        for (label, row) in rows {
            if let code = refused[label] {
                XCTAssertThrowsError(try N.decodeRow(bytes: N.rowEncoding(of: row)), "\(N.name) \(label)", file: file, line: line) {
                    XCTAssertEqual(($0 as? SyncKernelError)?.code, code, file: file, line: line)
                }
            } else {
                XCTAssertNoThrow(try N.decodeRow(bytes: N.rowEncoding(of: row)), "\(N.name) \(label)", file: file, line: line)
            }
        }
    }

    func testEveryNamespacesRowsAreValidAndDistinct() {
        check(NotebookNamespace.self, GoldenRows.notebook())
        check(MessagesNamespace.self, GoldenRows.messages())
        check(MemoryNamespace.self, GoldenRows.memory())
        check(ContactsNamespace.self, GoldenRows.contacts())
        check(PeerDevicesNamespace.self, GoldenRows.peerDevices())
        check(SettingsNamespace.self, GoldenRows.settings())
        check(SagaNamespace.self, GoldenRows.saga())
        check(PlansNamespace.self, GoldenRows.plans())
        check(FileIndexNamespace.self, GoldenRows.fileIndex())
        check(KTIdentityLedgerNamespace.self, GoldenRows.ktIdentityLedger())
        check(BlocksNamespace.self, GoldenRows.blocks())
        check(PostsNamespace.self, GoldenRows.posts())
        check(AgentConversationsNamespace.self, GoldenRows.agentConversations())
    }

    func testTheRowsCoverTheEdgesTheFilesClaim() {
        let messages = GoldenRows.messages().map(\.row)
        XCTAssertTrue(messages.contains { $0.peerUserIDHash == nil } && messages.contains { $0.peerUserIDHash == [] }
                      && messages.contains { ($0.peerUserIDHash?.count ?? 0) == 32 }, "peerUserIDHash absent, empty and set")
        XCTAssertTrue(messages.contains { $0.body.unicodeScalars.contains { !$0.isASCII } }, "non-ASCII text")
        let contacts = GoldenRows.contacts().map(\.row)
        XCTAssertTrue(contacts.contains { if case .relationship = $0 { true } else { false } }
                      && contacts.contains { if case .contact = $0 { true } else { false } }, "both contact variants")
        XCTAssertTrue(GoldenRows.memory().contains { MemoryNamespace.isDeviceDerived($0.row) }, "a device-derived event")
        XCTAssertTrue(GoldenRows.notebook().contains { $0.row.bodyOffloaded }, "an offloaded note")
    }
}
