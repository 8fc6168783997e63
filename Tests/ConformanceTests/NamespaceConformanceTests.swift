import ContactsNamespace
import Foundation
import MemoryNamespace
import MessagesNamespace
import NotebookNamespace
import OtherNamespaces
import SettingsNamespace
import SyncKernel
import SyncKernelTestKit
import XCTest

/// Runs the storm-conformance kit over every namespace in this repository.
final class NamespaceConformanceTests: XCTestCase {
    /// Seeds to run: one by default; `SYNCKERNEL_CONFORMANCE_SEEDS=N` (see `make conformance-soak`) runs N,
    /// and `SYNCKERNEL_CONFORMANCE_SEED=S` replays the one seed a failure printed.
    private var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let only = environment["SYNCKERNEL_CONFORMANCE_SEED"].flatMap(UInt64.init) { return [only] }
        let count = environment["SYNCKERNEL_CONFORMANCE_SEEDS"].flatMap(UInt64.init) ?? 1
        return (0..<max(count, 1)).map { 20_261_129 + $0 }
    }

    private func conform<Subject: NamespaceConformance>(_ subject: Subject.Type, file: StaticString = #filePath, line: UInt = #line) {
        let clock = ContinuousClock()
        for seed in seeds {
            let elapsed = clock.measure {
                do {
                    try ConformanceSuite(subject, seed: seed).run()
                } catch {
                    XCTFail("\(error)", file: file, line: line)
                }
            }
            print("conformance \(Subject.Namespace.name) seed \(seed): \(elapsed)")
        }
    }

    func testNotebookConforms() { conform(NotebookSubject.self) }
    func testMessagesConforms() { conform(MessagesSubject.self) }
    func testMemoryConforms() { conform(MemorySubject.self) }
    func testContactsConforms() { conform(ContactsSubject.self) }
    func testPeerDevicesConforms() { conform(PeerDevicesSubject.self) }
    func testSettingsConforms() { conform(SettingsSubject.self) }
    func testSagaConforms() { conform(SagaSubject.self) }
    func testPlansConforms() { conform(PlansSubject.self) }
    func testFileIndexConforms() { conform(FileIndexSubject.self) }
    func testKTIdentityLedgerConforms() { conform(KTIdentityLedgerSubject.self) }
    func testBlocksConforms() { conform(BlocksSubject.self) }
    func testPostsConforms() { conform(PostsSubject.self) }
    func testAgentConversationsConforms() { conform(AgentConversationsSubject.self) }
}

enum NotebookSubject: NamespaceConformance {
    typealias Namespace = NotebookNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Note {
        Note(id: generator.bytes(16), title: generator.text(), body: generator.text(words: 3...20),
             tags: (0..<generator.int(0...3)).map { _ in generator.word() }, createdAt: generator.date(), updatedAt: generator.date())
    }

    static let hashedFields: [FieldSpec<Note>] = [
        .keyPath("title", \.title, .text), .keyPath("body", \.body, .text), .keyPath("tags", \.tags, .array(.text)),
        .date("createdAt", \.createdAt), .date("updatedAt", \.updatedAt),
    ]
    static let excludedFields: [FieldSpec<Note>] = [
        .keyPath("bodyOffloaded", \.bodyOffloaded, .bool), .keyPath("offloadHolderPubkey", \.offloadHolderPubkey, .optional(.bytes(32))),
    ]

    static func touched(_ row: Note, at clock: Date) -> Note {
        var note = row
        note.updatedAt = clock
        return note
    }
}

enum MessagesSubject: NamespaceConformance {
    typealias Namespace = MessagesNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Message {
        Message(messageID: generator.bytes(16), conversationID: generator.bytes(16), sentAt: generator.date(),
                isOutgoing: generator.chance(0.5), body: generator.text(), senderName: generator.chance(0.5) ? generator.word() : "")
    }

    static let hashedFields: [FieldSpec<Message>] = [
        .keyPath("body", \.body, .text), .date("sentAt", \.sentAt), .keyPath("senderName", \.senderName, .text),
        .keyPath("isDelivered", \.isDelivered, .bool),
        .keyPath("peerUserIDHash", \.peerUserIDHash, .optional(.bytes(32))),
        .custom("reactions", read: { AnyHashable($0.reactions) }, mutate: { message, generator in
            var changed = message
            changed.reactions = Array(Set(message.reactions + [Reaction(reactor: generator.bytes(4), emoji: generator.word())])).sorted()
            return changed
        }),
        .custom("ops", read: { AnyHashable(MessagesNamespace.leafEncoding(of: $0)) }, mutate: { message, generator in
            var changed = message
            let action: MessageOp.Action = generator.chance(0.2) ? .delete(.me) : .edit(body: generator.text(), media: nil)
            changed.ops.append(MessageOp(opID: generator.bytes(16), action: action,
                                         causalOrder: MessageFold.nextCausalOrder(after: message), editedAt: generator.date()))
            changed.ops.sort { $0.opID.lexicographicallyPrecedes($1.opID) }
            return changed
        }),
    ]
    static let excludedFields: [FieldSpec<Message>] = [
        .keyPath("observedAt", \.observedAt, .optional(.date)), .keyPath("peerPubkey", \.peerPubkey, .optional(.bytes(32))),
        .keyPath("localRowID", \.localRowID, .optional(.int64)),
    ]

    static func received(_ row: Message, at clock: Date) -> Message {
        var message = row
        message.observedAt = clock
        message.peerPubkey = SHA256.hash(domain: Array("pinned".utf8), row.messageID)
        message.localRowID = Int64(CanonicalWriter.wholeSeconds(clock) % 10_000)
        return message
    }
}

enum MemorySubject: NamespaceConformance {
    typealias Namespace = MemoryNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> MemoryEvent {
        MemoryEvent(id: generator.bytes(16), kind: generator.chance(0.2) ? .buried(conversation: generator.bytes(16)) : .observation,
                    text: generator.text(), occurredAt: generator.date())
    }

    static let hashedFields: [FieldSpec<MemoryEvent>] = [.keyPath("text", \.text, .text), .date("occurredAt", \.occurredAt)]

    static let localPasses = [
        LocalPass<MemoryNamespace>("calendar") { tx, clock in
            try tx.replaceDerived(source: "calendar", with: [
                MemoryEvent(id: SHA256.hash(domain: Array("mint".utf8), Array("\(UUID())".utf8)).prefix(16).map { $0 },
                            kind: .observation, text: "standup", occurredAt: clock),
            ])
        },
    ]
}

enum ContactsSubject: NamespaceConformance {
    typealias Namespace = ContactsNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> ContactRecord {
        if generator.chance(0.4) {
            return .relationship(RelationshipState(pubkey: generator.bytes(32), stage: .connected, updatedAt: generator.date()))
        }
        return .contact(Contact(pubkey: generator.bytes(32), userIDHash: generator.bytes(32), accountSigningPubkey: generator.bytes(32),
                                channelKey: generator.bytes(32), name: generator.text(), updatedAt: generator.date()))
    }

    static let hashedFields: [FieldSpec<ContactRecord>] = [
        .custom("Contact.name / RelationshipState.stage", read: { AnyHashable(ContactsNamespace.leafEncoding(of: $0)) }, mutate: { record, generator in
            switch record {
            case .contact(var contact):
                contact.name = generator.text()
                return .contact(contact)
            case .relationship(var state):
                state.stage = [.none, .invited, .connected, .blocked][generator.int(0...3)]
                return .relationship(state)
            }
        }),
    ]
    static let excludedFields: [FieldSpec<ContactRecord>] = [
        .custom("Contact.systemContactIdentifier", read: { record in
            if case .contact(let contact) = record { return AnyHashable(contact.systemContactIdentifier) }
            return AnyHashable(0)
        }, mutate: { record, generator in
            guard case .contact(var contact) = record else { return record }
            contact.systemContactIdentifier = generator.word()
            return .contact(contact)
        }),
    ]

    static func touched(_ row: ContactRecord, at clock: Date) -> ContactRecord {
        switch row {
        case .contact(var contact):
            contact.updatedAt = clock
            return .contact(contact)
        case .relationship(var state):
            state.updatedAt = clock
            return .relationship(state)
        }
    }
}

enum PeerDevicesSubject: NamespaceConformance {
    typealias Namespace = PeerDevicesNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> PeerDeviceRoster {
        PeerDeviceRoster(contactPubkey: generator.bytes(32), devices: devices(&generator), lastAdvertisedAt: Int64(generator.int(0...1_000)))
    }

    private static func devices(_ generator: inout FieldGenerator) -> [PeerDeviceRoster.Device] {
        (0..<generator.int(1...3)).map { _ in PeerDeviceRoster.Device(key: generator.bytes(4), label: generator.word()) }
    }

    static let hashedFields: [FieldSpec<PeerDeviceRoster>] = [
        .custom("devices", read: { AnyHashable($0.devices) }, mutate: { roster, generator in
            PeerDeviceRoster(contactPubkey: roster.contactPubkey, devices: devices(&generator), lastAdvertisedAt: roster.lastAdvertisedAt)
        }),
        .keyPath("lastAdvertisedAt", \.lastAdvertisedAt, .int64),
    ]

    /// The roster's single author never goes back in time: a new advertisement is stamped after the last.
    static func touched(_ row: PeerDeviceRoster, at clock: Date) -> PeerDeviceRoster {
        PeerDeviceRoster(contactPubkey: row.contactPubkey, devices: row.devices,
                         lastAdvertisedAt: max(row.lastAdvertisedAt + 1, CanonicalWriter.wholeSeconds(clock)))
    }
}

enum SettingsSubject: NamespaceConformance {
    typealias Namespace = SettingsNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Setting {
        Setting(key: "pref." + generator.word() + "\(generator.int(0...1_000_000))", value: generator.word(), updatedAt: Int64(generator.int(0...9_999)))
    }

    static let hashedFields: [FieldSpec<Setting>] = [.keyPath("value", \.value, .text)]
    static let excludedFields: [FieldSpec<Setting>] = [.keyPath("updatedAt", \.updatedAt, .int64)]

    static func touched(_ row: Setting, at clock: Date) -> Setting {
        Setting(key: row.key, value: row.value, updatedAt: CanonicalWriter.wholeSeconds(clock))
    }
}

enum SagaSubject: NamespaceConformance {
    typealias Namespace = SagaNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> SagaEntry {
        SagaEntry(id: generator.bytes(16), title: generator.text(), chapters: [generator.text()], updatedAt: generator.date())
    }

    static let hashedFields: [FieldSpec<SagaEntry>] = [
        .keyPath("title", \.title, .text), .keyPath("chapters", \.chapters, .array(.text)), .date("updatedAt", \.updatedAt),
    ]

    static func touched(_ row: SagaEntry, at clock: Date) -> SagaEntry {
        SagaEntry(id: row.id, title: row.title, chapters: row.chapters, updatedAt: clock)
    }
}

enum PlansSubject: NamespaceConformance {
    typealias Namespace = PlansNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Plan {
        Plan(planID: generator.bytes(16), title: generator.text(), steps: [Plan.Step(text: generator.text(), done: false)],
             dueAt: generator.chance(0.5) ? generator.date() : nil, updatedAt: generator.date())
    }

    static let hashedFields: [FieldSpec<Plan>] = [
        .keyPath("title", \.title, .text),
        .custom("steps", read: { AnyHashable($0.steps) }, mutate: { plan, generator in
            var changed = plan
            changed.steps.append(Plan.Step(text: generator.text(), done: generator.chance(0.5)))
            return changed
        }),
        .keyPath("dueAt", \.dueAt, .optional(.date)), .date("updatedAt", \.updatedAt),
    ]

    static func touched(_ row: Plan, at clock: Date) -> Plan {
        var plan = row
        plan.updatedAt = clock
        return plan
    }
}

enum FileIndexSubject: NamespaceConformance {
    typealias Namespace = FileIndexNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> FileEntry {
        FileEntry(fileID: generator.bytes(16), name: generator.word(), size: Int64(generator.int(0...1_000_000)),
                  contentHash: generator.bytes(32), updatedAt: generator.date())
    }

    static let hashedFields: [FieldSpec<FileEntry>] = [
        .keyPath("name", \.name, .text), .keyPath("size", \.size, .int64), .keyPath("contentHash", \.contentHash, .bytes(32)),
        .date("updatedAt", \.updatedAt),
    ]
    static let excludedFields: [FieldSpec<FileEntry>] = [
        .keyPath("localPath", \.localPath, .optional(.text)), .keyPath("holderPubkey", \.holderPubkey, .optional(.bytes(32))),
    ]

    static func touched(_ row: FileEntry, at clock: Date) -> FileEntry {
        var entry = row
        entry.updatedAt = clock
        return entry
    }
}

enum KTIdentityLedgerSubject: NamespaceConformance {
    typealias Namespace = KTIdentityLedgerNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> LedgerEntry {
        LedgerEntry(userIDHash: generator.bytes(32), pubkey: generator.bytes(32), epoch: UInt64(generator.int(0...100_000)))
    }

    static let hashedFields: [FieldSpec<LedgerEntry>] = []
    static let excludedFields: [FieldSpec<LedgerEntry>] = [.keyPath("observedAt", \.observedAt, .optional(.date))]

    static func received(_ row: LedgerEntry, at clock: Date) -> LedgerEntry {
        var entry = row
        entry.observedAt = clock
        return entry
    }
}

enum BlocksSubject: NamespaceConformance {
    typealias Namespace = BlocksNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> BlockEntry {
        BlockEntry(userIDHash: generator.bytes(32), isBlocked: generator.chance(0.5), updatedAt: generator.date())
    }

    static let hashedFields: [FieldSpec<BlockEntry>] = [.keyPath("isBlocked", \.isBlocked, .bool), .date("updatedAt", \.updatedAt)]

    static func touched(_ row: BlockEntry, at clock: Date) -> BlockEntry {
        BlockEntry(userIDHash: row.userIDHash, isBlocked: row.isBlocked, updatedAt: clock)
    }
}

enum PostsSubject: NamespaceConformance {
    typealias Namespace = PostsNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Post {
        Post(postID: generator.bytes(16), body: generator.text(), publishedAt: generator.date(),
             supersedes: generator.chance(0.2) ? generator.bytes(16) : nil)
    }

    static let hashedFields: [FieldSpec<Post>] = [
        .custom("body", read: { AnyHashable($0.body) }, mutate: { post, generator in
            Post(postID: post.postID, body: generator.text(), publishedAt: post.publishedAt, supersedes: post.supersedes,
                 isRetraction: post.isRetraction)
        }),
    ]
}

enum AgentConversationsSubject: NamespaceConformance {
    typealias Namespace = AgentConversationsNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> AgentTurn {
        AgentTurn(turnID: generator.bytes(16), conversationID: generator.bytes(16), role: generator.chance(0.5) ? .user : .agent,
                  text: generator.text(), at: generator.date())
    }

    static let hashedFields: [FieldSpec<AgentTurn>] = []
    static let excludedFields: [FieldSpec<AgentTurn>] = [.keyPath("localTokenCount", \.localTokenCount, .optional(.int64))]
}
