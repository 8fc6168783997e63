import ContactsNamespace
import Foundation
import MemoryNamespace
import MessagesNamespace
import NotebookNamespace
import OtherNamespaces
import SettingsNamespace
import SyncKernel
import SyncKernelSimulator

/// The simulator's workload for each of the thirteen namespaces.
enum Workloads {
    /// Every namespace, in name order.
    static let all: [NamespaceWorkload] = [
        agentConversations, blocks, contacts, fileIndex, ktIdentityLedger, memory, messages, notebook, peerDevices,
        plans, posts, saga, settings,
    ].sorted { $0.namespace.name < $1.namespace.name }

    private static let words = ["sync", "merkle", "vector", "clock", "device", "relay", "digest", "leaf",
                                "bucket", "merge", "tombstone", "offload", "note", "skew", "round", "fold"]

    private static func text(_ random: inout SeededGenerator, words count: Int) -> String {
        (0..<count).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
    }

    private static func id(_ random: inout SeededGenerator) -> [UInt8] { random.bytes(16) }

    static let notebook = NamespaceWorkload.causal(NotebookNamespace.self, make: { random, clock in
        Note(id: id(&random), title: text(&random, words: 3), body: text(&random, words: 20), createdAt: clock, updatedAt: clock)
    }, edit: { note, random, clock in
        var edited = note
        edited.body = text(&random, words: 22)
        edited.updatedAt = clock
        return edited
    })

    static let saga = NamespaceWorkload.causal(SagaNamespace.self, make: { random, clock in
        SagaEntry(id: id(&random), title: text(&random, words: 2), chapters: [text(&random, words: 12)], updatedAt: clock)
    }, edit: { saga, random, clock in
        SagaEntry(id: saga.id, title: saga.title, chapters: saga.chapters + [text(&random, words: 8)], updatedAt: clock)
    })

    static let plans = NamespaceWorkload.causal(PlansNamespace.self, make: { random, clock in
        Plan(planID: id(&random), title: text(&random, words: 2),
             steps: (0..<3).map { _ in Plan.Step(text: text(&random, words: 3), done: false) }, dueAt: nil, updatedAt: clock)
    }, edit: { plan, random, clock in
        var edited = plan
        if !edited.steps.isEmpty { edited.steps[Int(random.next() % UInt64(edited.steps.count))].done.toggle() }
        edited.updatedAt = clock
        return edited
    })

    static let fileIndex = NamespaceWorkload.causal(FileIndexNamespace.self, make: { random, clock in
        FileEntry(fileID: id(&random), name: text(&random, words: 1) + ".pdf", size: Int64(random.next() % 1_000_000),
                  contentHash: random.bytes(32), updatedAt: clock, localPath: random.chance(0.5) ? "/files/x" : nil)
    }, edit: { file, random, clock in
        var edited = file
        edited.name = text(&random, words: 1) + ".txt"
        edited.updatedAt = clock
        return edited
    })

    static let blocks = NamespaceWorkload.causal(BlocksNamespace.self, make: { random, clock in
        BlockEntry(userIDHash: random.bytes(32), isBlocked: true, updatedAt: clock)
    }, edit: { block, _, clock in
        BlockEntry(userIDHash: block.userIDHash, isBlocked: !block.isBlocked, updatedAt: clock)
    })

    static let contacts = NamespaceWorkload.causal(ContactsNamespace.self, make: { random, clock in
        if random.chance(0.5) {
            return .relationship(RelationshipState(pubkey: random.bytes(32), stage: .connected, updatedAt: clock))
        }
        return .contact(Contact(pubkey: random.bytes(32), userIDHash: random.bytes(32), accountSigningPubkey: random.bytes(32),
                                channelKey: random.bytes(32), name: text(&random, words: 2), updatedAt: clock))
    }, edit: { record, random, clock in
        switch record {
        case .contact(var contact):
            contact.name = text(&random, words: 2)
            contact.updatedAt = clock
            return .contact(contact)
        case .relationship(var state):
            state.stage = [.invited, .connected, .blocked][Int(random.next() % 3)]
            state.updatedAt = clock
            return .relationship(state)
        }
    })

    static let settings = NamespaceWorkload.causal(SettingsNamespace.self, make: { random, clock in
        let seconds = CanonicalWriter.wholeSeconds(clock)
        if random.chance(0.5) {
            return Setting(key: ReadState.key(conversation: "c\(random.next() % 50)"),
                           value: ReadState.encode(seconds: seconds - Int64(random.next() % 100)), updatedAt: seconds)
        }
        return Setting(key: "pref.\(random.next() % 50)", value: text(&random, words: 1), updatedAt: seconds)
    }, edit: { setting, random, clock in
        let seconds = CanonicalWriter.wholeSeconds(clock)
        if let mark = ReadState.decode(setting.value) {
            return Setting(key: setting.key, value: ReadState.encode(seconds: mark + Int64(random.next() % 60)), updatedAt: seconds)
        }
        return Setting(key: setting.key, value: text(&random, words: 1), updatedAt: seconds)
    })

    static let ktIdentityLedger = NamespaceWorkload.appendOnly(KTIdentityLedgerNamespace.self) { random, clock in
        LedgerEntry(userIDHash: random.bytes(32), pubkey: random.bytes(32), epoch: random.next() % 10_000, observedAt: clock)
    }

    static let posts = NamespaceWorkload.appendOnly(PostsNamespace.self) { random, clock in
        Post(postID: id(&random), body: text(&random, words: 15), publishedAt: clock)
    }

    static let agentConversations = NamespaceWorkload.appendOnly(AgentConversationsNamespace.self) { random, clock in
        AgentTurn(turnID: id(&random), conversationID: [UInt8](repeating: UInt8(random.next() % 8), count: 16),
                  role: random.chance(0.5) ? .user : .agent, text: text(&random, words: 12), at: clock,
                  localTokenCount: Int64(random.next() % 500))
    }

    static let memory = NamespaceWorkload(namespace: MemoryNamespace.self, seed: { store, count, random, clock in
        let events = (0..<count).map { _ in
            MemoryEvent(id: id(&random), kind: .observation, text: text(&random, words: 10), occurredAt: clock)
        }
        try store.write(MemoryNamespace.self) { tx throws(SyncKernelError) in for event in events { try tx.append(event) } }
    }, change: { fleet, device, random, clock in
        try fleet.write(on: device, MemoryNamespace.self) { tx throws(SyncKernelError) in
            let conversation = [UInt8](repeating: UInt8(random.next() % 8), count: 16)
            let kind: MemoryEvent.Kind = random.chance(0.1) ? .buried(conversation: conversation)
                : random.chance(0.3) ? .summary(conversation: conversation) : .observation
            try tx.append(MemoryEvent(id: id(&random), kind: kind, text: text(&random, words: 8), occurredAt: clock))
            try tx.replaceDerived(source: "calendar", with: [
                MemoryEvent(id: id(&random), kind: .observation, text: "calendar: " + text(&random, words: 3), occurredAt: clock),
            ])
        }
    })

    static let messages = NamespaceWorkload(namespace: MessagesNamespace.self, seed: { store, count, random, clock in
        let messages = (0..<count).map { _ in newMessage(&random, clock) }
        try store.write(MessagesNamespace.self) { tx throws(SyncKernelError) in for message in messages { try tx.record(message) } }
    }, change: { fleet, device, random, clock in
        try fleet.write(on: device, MessagesNamespace.self) { tx throws(SyncKernelError) in
            let held = try tx.allRows().filter { MessageFold.effective($0).deleted == nil }
            let roll = random.next() % 100
            guard !held.isEmpty, roll >= 30 else { return try tx.record(newMessage(&random, clock)) }
            let message = held[Int(random.next() % UInt64(held.count))]
            let target = message.messageID
            // The account edits and deletes for everyone only what it sent (author-only).
            let own = message.author == simulatedAccount
            switch roll {
            case 30..<65 where own:
                try tx.edit(target, body: text(&random, words: 9), opID: id(&random), editedAt: clock, as: simulatedAccount)
            case 65..<75:
                try tx.delete(target, scope: own && random.chance(0.5) ? .everyone : .me, opID: id(&random), at: clock,
                              as: simulatedAccount)
            case 30..<90: try tx.markDelivered(target)
            default: try tx.backfillIdentity(target, peerUserIDHash: random.bytes(32), senderName: text(&random, words: 1))
            }
            try tx.canonicalizePeerPubkey(target, pinned: random.bytes(32))
        }
    })

    /// The fingerprint of the account the simulated devices belong to: the author of its
    /// outgoing messages.
    static let simulatedAccount = [UInt8](repeating: 0xac, count: 32)

    private static func newMessage(_ random: inout SeededGenerator, _ clock: Date) -> Message {
        let outgoing = random.chance(0.5)
        let sender = outgoing ? simulatedAccount : [UInt8](repeating: UInt8(random.next() % 8), count: 32)
        var message = Message(messageID: id(&random), conversationID: [UInt8](repeating: UInt8(random.next() % 8), count: 16),
                              sentAt: clock, isOutgoing: outgoing, body: text(&random, words: 14), author: sender)
        message.observedAt = clock
        return message
    }

    static let peerDevices = NamespaceWorkload(namespace: PeerDevicesNamespace.self, seed: { store, count, random, _ in
        let rosters = (0..<count).map { index in roster(contact: index, stamp: 1, &random) }
        try store.write(PeerDevicesNamespace.self) { tx throws(SyncKernelError) in for roster in rosters { try tx.save(roster) } }
    }, change: { fleet, device, random, clock in
        let stamp = CanonicalWriter.wholeSeconds(clock) * 1_000 + Int64(random.next() % 1_000)
        let advertisement = roster(contact: Int(random.next() % 16), stamp: stamp, &random)
        try fleet.write(on: device, PeerDevicesNamespace.self) { tx throws(SyncKernelError) in
            try tx.receiveAdvertisement(advertisement)
        }
    })

    private static func roster(contact: Int, stamp: Int64, _ random: inout SeededGenerator) -> PeerDeviceRoster {
        let contactKey = (0..<4).map { UInt8(truncatingIfNeeded: contact >> (8 * $0)) } + [UInt8](repeating: 0x5c, count: 28)
        let devices = (0..<(1 + random.next() % 3)).map { index in
            PeerDeviceRoster.Device(key: contactKey.prefix(4) + [UInt8(index), UInt8(random.next() % 4)], label: "device \(index)")
        }
        return PeerDeviceRoster(contactPubkey: contactKey, devices: devices, lastAdvertisedAt: stamp)
    }
}
