import Foundation
import OtherNamespaces
import SyncKernel
import XCTest

final class OtherNamespacesTests: XCTestCase {
    func testFileIndexLeafIgnoresWhereTheBytesLive() throws {
        let pair = try TwoDevices()
        let hash = TwoDevices.key32(7)
        let file = FileEntry(fileID: TwoDevices.id(1), name: "a.pdf", size: 10, contentHash: hash, updatedAt: TwoDevices.at(5))
        var resident = file
        resident.localPath = "/files/a.pdf"
        var pointer = file
        pointer.holderPubkey = TwoDevices.key32(9)
        try pair.a.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.save(resident) }
        try pair.b.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.save(pointer) }
        XCTAssertTrue(pair.agree(FileIndexNamespace.self))
        var renamed = pointer
        renamed.name = "b.pdf"
        renamed.updatedAt = TwoDevices.at(6)
        try pair.b.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.save(renamed) }
        try pair.sync(FileIndexNamespace.self)
        let onA = try XCTUnwrap(try pair.a.row(FileIndexNamespace.self, key: TwoDevices.id(1)))
        XCTAssertEqual(onA.name, "b.pdf")
        XCTAssertEqual(onA.localPath, "/files/a.pdf", "A keeps its bytes")
        XCTAssertTrue(pair.agree(FileIndexNamespace.self))
    }

    func testLedgerEntriesAreContentAddressedAndInsertIfAbsent() throws {
        let pair = try TwoDevices()
        let entry = LedgerEntry(userIDHash: [1], pubkey: [2], epoch: 3, observedAt: TwoDevices.at(1))
        var later = LedgerEntry(userIDHash: [1], pubkey: [2], epoch: 3, observedAt: TwoDevices.at(99))
        XCTAssertEqual(entry.entryHash, later.entryHash)
        later.observedAt = TwoDevices.at(100)
        try pair.a.write(KTIdentityLedgerNamespace.self) { tx throws(SyncKernelError) in try tx.save(entry) }
        try pair.b.write(KTIdentityLedgerNamespace.self) { tx throws(SyncKernelError) in try tx.save(later) }
        XCTAssertTrue(pair.agree(KTIdentityLedgerNamespace.self))
        try pair.b.write(KTIdentityLedgerNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(LedgerEntry(userIDHash: [1], pubkey: [5], epoch: 4))
        }
        try pair.sync(KTIdentityLedgerNamespace.self)
        XCTAssertEqual(try pair.a.rows(KTIdentityLedgerNamespace.self).count, 2)
        XCTAssertTrue(pair.agree(KTIdentityLedgerNamespace.self))
    }

    func testCausalDocumentsFollowWhatEachEditHadSeen() throws {
        let pair = try TwoDevices()
        try pair.a.write(PlansNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Plan(planID: TwoDevices.id(1), title: "Trip", steps: [.init(text: "book", done: false)], dueAt: nil,
                             updatedAt: TwoDevices.at(1_000)))
        }
        try pair.sync(PlansNamespace.self)
        try pair.b.write(PlansNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Plan(planID: TwoDevices.id(1), title: "Trip", steps: [.init(text: "book", done: true)], dueAt: nil,
                             updatedAt: TwoDevices.at(10)))
        }
        try pair.sync(PlansNamespace.self)
        XCTAssertEqual(try pair.a.row(PlansNamespace.self, key: TwoDevices.id(1))?.steps.first?.done, true)
        try pair.a.write(BlocksNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(BlockEntry(userIDHash: [9], isBlocked: true, updatedAt: TwoDevices.at(50)))
        }
        try pair.sync(BlocksNamespace.self)
        try pair.b.write(BlocksNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(BlockEntry(userIDHash: [9], isBlocked: false, updatedAt: TwoDevices.at(40)))
        }
        try pair.sync(BlocksNamespace.self)
        XCTAssertEqual(try pair.a.row(BlocksNamespace.self, key: [9])?.isBlocked, false, "the unblock had seen the block")
        for namespace in [PlansNamespace.self as any SyncNamespace.Type, BlocksNamespace.self] {
            XCTAssertEqual(pair.a.stateDigest().roots, pair.b.stateDigest().roots, "\(namespace.name)")
        }
    }

    func testAppendOnlyNamespacesUnionTheirRows() throws {
        let pair = try TwoDevices()
        try pair.a.write(PostsNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Post(postID: TwoDevices.id(1), body: "hello", publishedAt: TwoDevices.at(1)))
        }
        try pair.b.write(PostsNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Post(postID: TwoDevices.id(2), body: "", publishedAt: TwoDevices.at(2), supersedes: TwoDevices.id(1),
                             isRetraction: true))
        }
        try pair.a.write(AgentConversationsNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(AgentTurn(turnID: TwoDevices.id(3), conversationID: TwoDevices.id(4), role: .user, text: "hi",
                                  at: TwoDevices.at(3), localTokenCount: 12))
        }
        try pair.b.write(SagaNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(SagaEntry(id: TwoDevices.id(5), title: "Saga", chapters: ["one"], updatedAt: TwoDevices.at(4)))
        }
        try pair.sync(PostsNamespace.self)
        try pair.sync(AgentConversationsNamespace.self)
        try pair.sync(SagaNamespace.self)
        XCTAssertEqual(try pair.a.rows(PostsNamespace.self).count, 2)
        XCTAssertNil(try pair.b.row(AgentConversationsNamespace.self, key: TwoDevices.id(3))?.localTokenCount)
        XCTAssertEqual(pair.a.stateDigest(), pair.b.stateDigest())
    }
}
