import ContactsNamespace
import MemoryNamespace
import MessagesNamespace
import NotebookNamespace
import OtherNamespaces
import SettingsNamespace
import SyncKernel
import SyncKernelTestKit

/// The namespaces the fuzz targets cover, and valid rows of each built from seeded values.
///
/// Invariant: `all` lists every namespace of this repository in a fixed order (the row target's
/// first input byte indexes it), and `sampleRow` yields, for one seed, the same encoding every
/// run, built only through the namespace's own initialisers and `rowEncoding(of:)`.
package enum FuzzNamespaces {
    /// Every namespace, in the order the row target's first byte selects them.
    package static let all: [any SyncNamespace.Type] = samplers.map(\.namespace)

    /// The encoding of one valid row of `all[index]`, drawn from `generator`.
    package static func sampleRow(_ index: Int, _ generator: inout FieldGenerator) -> [UInt8] {
        samplers[index].make(&generator)
    }

    private struct Sampler: Sendable {
        let namespace: any SyncNamespace.Type
        let make: @Sendable (inout FieldGenerator) -> [UInt8]

        init<N: SyncNamespace>(_ namespace: N.Type, _ make: @escaping @Sendable (inout FieldGenerator) -> N.Row) {
            self.namespace = namespace
            self.make = { generator in N.rowEncoding(of: make(&generator)) }
        }
    }

    private static let samplers: [Sampler] = [
        Sampler(NotebookNamespace.self) { g in
            Note(id: g.bytes(16), title: g.text(), body: g.text(words: 3...20), tags: (0..<g.int(0...3)).map { _ in g.word() },
                 createdAt: g.date(), updatedAt: g.date())
        },
        Sampler(MessagesNamespace.self) { g in
            Message(messageID: g.bytes(16), conversationID: g.bytes(16), sentAt: g.date(), isOutgoing: g.chance(0.5),
                    body: g.text(), senderName: g.chance(0.5) ? g.word() : "", author: g.bytes(32))
        },
        Sampler(MemoryNamespace.self) { g in
            MemoryEvent(id: g.bytes(16), kind: g.chance(0.3) ? .buried(conversation: g.bytes(16)) : .observation,
                        text: g.text(), occurredAt: g.date())
        },
        Sampler(ContactsNamespace.self) { g in
            if g.chance(0.4) {
                return .relationship(RelationshipState(pubkey: g.bytes(32), stage: .connected, updatedAt: g.date()))
            }
            return .contact(Contact(pubkey: g.bytes(32), userIDHash: g.bytes(32), accountSigningPubkey: g.bytes(32),
                                    channelKey: g.bytes(32), name: g.text(), updatedAt: g.date()))
        },
        Sampler(PeerDevicesNamespace.self) { g in
            PeerDeviceRoster(contactPubkey: g.bytes(32),
                             devices: (0..<g.int(1...3)).map { _ in PeerDeviceRoster.Device(key: g.bytes(4), label: g.word()) },
                             lastAdvertisedAt: Int64(g.int(0...1_000)))
        },
        Sampler(SettingsNamespace.self) { g in
            Setting(key: "pref." + g.word() + "\(g.int(0...1_000_000))", value: g.word(), updatedAt: Int64(g.int(0...9_999)))
        },
        Sampler(SagaNamespace.self) { g in
            SagaEntry(id: g.bytes(16), title: g.text(), chapters: [g.text()], updatedAt: g.date())
        },
        Sampler(PlansNamespace.self) { g in
            Plan(planID: g.bytes(16), title: g.text(), steps: [Plan.Step(text: g.text(), done: g.chance(0.5))],
                 dueAt: g.chance(0.5) ? g.date() : nil, updatedAt: g.date())
        },
        Sampler(FileIndexNamespace.self) { g in
            FileEntry(fileID: g.bytes(16), name: g.word(), size: Int64(g.int(0...1_000_000)), contentHash: g.bytes(32),
                      updatedAt: g.date())
        },
        Sampler(KTIdentityLedgerNamespace.self) { g in
            LedgerEntry(userIDHash: g.bytes(32), pubkey: g.bytes(32), epoch: UInt64(g.int(0...100_000)))
        },
        Sampler(BlocksNamespace.self) { g in
            BlockEntry(userIDHash: g.bytes(32), isBlocked: g.chance(0.5), updatedAt: g.date())
        },
        Sampler(PostsNamespace.self) { g in
            Post(postID: g.bytes(16), body: g.text(), publishedAt: g.date(), supersedes: g.chance(0.2) ? g.bytes(16) : nil)
        },
        Sampler(AgentConversationsNamespace.self) { g in
            AgentTurn(turnID: g.bytes(16), conversationID: g.bytes(16), role: g.chance(0.5) ? .user : .agent,
                      text: g.text(), at: g.date())
        },
    ]
}
