import ContactsNamespace
import Foundation
#if canImport(Glibc)
import Glibc
#endif
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
    /// Runs the kit for every seed `ConformanceSuite.seeds()` gives: one by default,
    /// `SYNCKERNEL_CONFORMANCE_SEEDS=N` (see `make conformance-soak`) runs N, and
    /// `SYNCKERNEL_CONFORMANCE_SEED=S` replays the one seed a report printed.
    private func conform<Subject: NamespaceConformance>(_ subject: Subject.Type, file: StaticString = #filePath, line: UInt = #line) {
        let clock = ContinuousClock()
        for seed in ConformanceSuite<Subject>.seeds() {
            let cpuBefore = Self.cpuSeconds()
            let elapsed = clock.measure {
                do {
                    try ConformanceSuite(subject, seed: seed).run()
                } catch {
                    XCTFail("\(error)", file: file, line: line)
                }
            }
            let cpu = Self.cpuSeconds() - cpuBefore
            print("conformance \(Subject.Namespace.name) seed \(seed): wall \(elapsed), cpu \(String(format: "%.3f", cpu)) s")
        }
    }

    /// CPU time this process has used (user and system), in seconds.
    private static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1_000_000
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

    /// Offloading through `markOffloaded` (the body's digest stamped, the body cleared) and back
    /// through `restoreBody`.
    static let residency: Residency<NotebookNamespace>? = Residency(offload: { tx, key, holder in
        guard let note = try tx.row(forKey: key), !note.bodyOffloaded else { return false }
        try tx.markOffloaded(id: key, contentHash: NotebookNamespace.bodyDigest(of: note.body), holder: holder)
        return true
    }, restore: { tx, key, original in
        try tx.restoreBody(id: key, body: original.body)
    })

    static func makeRow(_ generator: inout FieldGenerator) -> Note {
        Note(id: generator.bytes(16), title: generator.text(), body: generator.text(words: 3...20),
             tags: (0..<generator.int(0...3)).map { _ in generator.word() }, createdAt: generator.date(), updatedAt: generator.date())
    }
}

enum MessagesSubject: NamespaceConformance {
    typealias Namespace = MessagesNamespace

    /// A delete for this account or for everyone, ordered after every operation held.
    static let retraction: Retraction<Message>? = Retraction(retract: { message, generator, clock in
        // The kit's rows hold small counters; a message at the bound would stay as it is.
        guard let order = try? MessageFold.nextCausalOrder(after: message) else { return message }
        var deleted = message
        deleted.ops.append(MessageOp(opID: generator.bytes(16), action: .delete(generator.chance(0.5) ? .me : .everyone),
                                     causalOrder: order, editedAt: clock, author: message.author))
        deleted.ops.sort { $0.opID.lexicographicallyPrecedes($1.opID) }
        return deleted
    }, isRetracted: { MessageFold.effective($0).deleted != nil })

    /// Reactions stay a sorted set and ops gain an operation ordered after those held (the kit
    /// cannot invent values for the ops' hand-written action codec).
    static let fieldMutations: [FieldSpec<Message>] = [
        .custom("reactions", read: { AnyHashable($0.reactions) }, mutate: { message, generator in
            var changed = message
            changed.reactions = Array(Set(message.reactions + [Reaction(reactor: generator.bytes(4), emoji: generator.word())])).sorted()
            return changed
        }),
        .custom("ops", read: { AnyHashable(MessagesNamespace.leafEncoding(of: $0)) }, mutate: { message, generator in
            guard let order = try? MessageFold.nextCausalOrder(after: message) else { return message }
            var changed = message
            let action: MessageOp.Action = generator.chance(0.2) ? .delete(.me) : .edit(body: generator.text(), media: nil)
            changed.ops.append(MessageOp(opID: generator.bytes(16), action: action,
                                         causalOrder: order, editedAt: generator.date(), author: message.author))
            changed.ops.sort { $0.opID.lexicographicallyPrecedes($1.opID) }
            return changed
        }),
    ]

    static func makeRow(_ generator: inout FieldGenerator) -> Message {
        Message(messageID: generator.bytes(16), conversationID: generator.bytes(16), sentAt: generator.date(),
                isOutgoing: generator.chance(0.5), body: generator.text(), senderName: generator.chance(0.5) ? generator.word() : "",
                author: generator.bytes(32))
    }

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

    /// The kit cannot invent values for the kind's hand-written codec.
    static let fieldMutations: [FieldSpec<MemoryEvent>] = [
        .custom("kind", read: { AnyHashable(MemoryEvent.Kind.codec.encoded($0.kind)) }, mutate: { event, generator in
            var changed = event
            changed.kind = [.observation, .summary(conversation: generator.bytes(16)), .buried(conversation: generator.bytes(16))][generator.int(0...2)]
            return changed
        }),
    ]

    static func makeRow(_ generator: inout FieldGenerator) -> MemoryEvent {
        MemoryEvent(id: generator.bytes(16), kind: generator.chance(0.2) ? .buried(conversation: generator.bytes(16)) : .observation,
                    text: generator.text(), occurredAt: generator.date())
    }

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
}

enum PeerDevicesSubject: NamespaceConformance {
    typealias Namespace = PeerDevicesNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> PeerDeviceRoster {
        PeerDeviceRoster(contactPubkey: generator.bytes(32), devices: devices(&generator), lastAdvertisedAt: Int64(generator.int(0...1_000)))
    }

    private static func devices(_ generator: inout FieldGenerator) -> [PeerDeviceRoster.Device] {
        (0..<generator.int(1...3)).map { _ in PeerDeviceRoster.Device(key: generator.bytes(4), label: generator.word()) }
    }
}

enum SettingsSubject: NamespaceConformance {
    typealias Namespace = SettingsNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Setting {
        Setting(key: "pref." + generator.word() + "\(generator.int(0...1_000_000))", value: generator.word(), updatedAt: Int64(generator.int(0...9_999)))
    }
}

enum SagaSubject: NamespaceConformance {
    typealias Namespace = SagaNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> SagaEntry {
        SagaEntry(id: generator.bytes(16), title: generator.text(), chapters: [generator.text()], updatedAt: generator.date())
    }
}

enum PlansSubject: NamespaceConformance {
    typealias Namespace = PlansNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Plan {
        Plan(planID: generator.bytes(16), title: generator.text(), steps: [Plan.Step(text: generator.text(), done: false)],
             dueAt: generator.chance(0.5) ? generator.date() : nil, updatedAt: generator.date())
    }
}

enum FileIndexSubject: NamespaceConformance {
    typealias Namespace = FileIndexNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> FileEntry {
        FileEntry(fileID: generator.bytes(16), name: generator.word(), size: Int64(generator.int(0...1_000_000)),
                  contentHash: generator.bytes(32), updatedAt: generator.date())
    }
}

enum KTIdentityLedgerSubject: NamespaceConformance {
    typealias Namespace = KTIdentityLedgerNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> LedgerEntry {
        LedgerEntry(userIDHash: generator.bytes(32), pubkey: generator.bytes(32), epoch: UInt64(generator.int(0...100_000)))
    }

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
}

enum PostsSubject: NamespaceConformance {
    typealias Namespace = PostsNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> Post {
        Post(postID: generator.bytes(16), body: generator.text(), publishedAt: generator.date(),
             supersedes: generator.chance(0.2) ? generator.bytes(16) : nil)
    }
}

enum AgentConversationsSubject: NamespaceConformance {
    typealias Namespace = AgentConversationsNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> AgentTurn {
        AgentTurn(turnID: generator.bytes(16), conversationID: generator.bytes(16), role: generator.chance(0.5) ? .user : .agent,
                  text: generator.text(), at: generator.date())
    }
}
