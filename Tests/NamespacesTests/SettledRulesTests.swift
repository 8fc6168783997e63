import Foundation
import OtherNamespaces
import SettingsNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

/// The rules issue 15 settled where the namespaces differ from the spec without a word: blocks'
/// block and unblock outcome (a stated policy), fileIndex staying causal (what only vectors
/// give it), settings' one leaf per key and the kernel's own domain strings.
final class SettledRulesTests: XCTestCase {
    private let user: [UInt8] = [9]

    private func block(_ store: KernelStore, _ blocked: Bool, at seconds: Double) throws {
        try store.write(BlocksNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(BlockEntry(userIDHash: self.user, isBlocked: blocked, updatedAt: TwoDevices.at(seconds)))
        }
    }

    func testBlocksAConcurrentBlockAndUnblockResolveToBlockedWhateverTheClocksOrTheNumberOfToggles() throws {
        for unblockerToggles in [1, 4] {
            let pair = try TwoDevices()
            try block(pair.a, false, at: 10)
            try pair.sync(BlocksNamespace.self)
            // A toggles several times and ends unblocked, with the later clock; B blocks once.
            for toggle in 0..<unblockerToggles {
                try block(pair.a, toggle % 2 == 1, at: Double(100 + toggle))
            }
            if unblockerToggles % 2 == 0 { try block(pair.a, false, at: 200) }
            try block(pair.b, true, at: 20)
            try pair.sync(BlocksNamespace.self)
            try pair.sync(BlocksNamespace.self)
            XCTAssertTrue(pair.agree(BlocksNamespace.self))
            for store in [pair.a, pair.b] {
                XCTAssertEqual(try store.row(BlocksNamespace.self, key: user)?.isBlocked, true,
                               "\(unblockerToggles) toggles: a concurrent block wins, whatever the clocks or the counts")
                let versions = try store.versions(BlocksNamespace.self, key: user)
                XCTAssertEqual(versions.map(\.row.isBlocked), [true, false], "the unblock is kept as the concurrent version")
            }
            // An unblock made after seeing the block wins.
            try pair.b.write(BlocksNamespace.self) { tx throws(SyncKernelError) in
                let seen = try tx.versions(forKey: self.user)
                try tx.resolve(BlockEntry(userIDHash: self.user, isBlocked: false, updatedAt: TwoDevices.at(5)), over: seen)
            }
            try pair.sync(BlocksNamespace.self)
            XCTAssertEqual(try pair.a.row(BlocksNamespace.self, key: user)?.isBlocked, false, "the unblock had seen the block")
            XCTAssertEqual(try pair.a.versions(BlocksNamespace.self, key: user).count, 1)
            XCTAssertTrue(pair.agree(BlocksNamespace.self))
        }
    }

    func testBlocksTheStatedTieBreakIsTheOrderTheDefaultByteOrderGaveSoNoOutcomeChanged() {
        var random = SeededGenerator(seed: 15)
        for round in 0..<500 {
            let key = random.bytes(Int(random.next() % 4) + 1)
            let local = BlockEntry(userIDHash: key, isBlocked: random.chance(0.5), updatedAt: TwoDevices.at(Double(random.next() % 4_000_000_000) - 2e9))
            let incoming = BlockEntry(userIDHash: key, isBlocked: random.chance(0.5),
                                      updatedAt: TwoDevices.at(Double(random.next() % 4_000_000_000) - 2e9))
            guard BlocksNamespace.leafEncoding(of: local) != BlocksNamespace.leafEncoding(of: incoming) else { continue }
            let byBytes = BlocksNamespace.leafEncoding(of: local).lexicographicallyPrecedes(BlocksNamespace.leafEncoding(of: incoming))
            XCTAssertEqual(BlocksNamespace.incomingWinsTie(incoming, over: local), byBytes, "seed 15 round \(round)")
            if incoming.isBlocked != local.isBlocked {
                XCTAssertEqual(BlocksNamespace.incomingWinsTie(incoming, over: local), incoming.isBlocked, "seed 15 round \(round)")
            }
        }
    }

    func testFileIndexStaysCausalTwoDevicesSavingDifferentBytesKeepBothVersionsAndARenameOutlivesAConcurrentRemove() throws {
        let pair = try TwoDevices()
        let id = TwoDevices.id(1)
        let file = FileEntry(fileID: id, name: "report.pdf", size: 10, contentHash: TwoDevices.key32(1), updatedAt: TwoDevices.at(5))
        try pair.a.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.save(file) }
        try pair.sync(FileIndexNamespace.self)
        var onA = file
        (onA.size, onA.contentHash, onA.updatedAt) = (11, TwoDevices.key32(2), TwoDevices.at(6))
        var onB = file
        (onB.size, onB.contentHash, onB.updatedAt) = (12, TwoDevices.key32(3), TwoDevices.at(6))
        try pair.a.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.save(onA) }
        try pair.b.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.save(onB) }
        try pair.sync(FileIndexNamespace.self)
        try pair.sync(FileIndexNamespace.self)
        XCTAssertTrue(pair.agree(FileIndexNamespace.self))
        let versions = try pair.a.versions(FileIndexNamespace.self, key: id)
        XCTAssertEqual(Set(versions.map(\.row.contentHash)), [TwoDevices.key32(2), TwoDevices.key32(3)],
                       "neither device's bytes are silently dropped")
        XCTAssertEqual(Set(versions.compactMap(\.writer)), [pair.deviceA, pair.deviceB])
        XCTAssertEqual(try pair.b.versions(FileIndexNamespace.self, key: id), versions)

        // A resolve keeps A's bytes; then B renames while A removes, concurrently: the rename keeps the file.
        try pair.a.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.resolve(onA, over: versions) }
        try pair.sync(FileIndexNamespace.self)
        var renamed = onA
        (renamed.name, renamed.updatedAt) = ("final.pdf", TwoDevices.at(7))
        try pair.b.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.save(renamed) }
        try pair.a.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: id) }
        try pair.sync(FileIndexNamespace.self)
        try pair.sync(FileIndexNamespace.self)
        XCTAssertEqual(try pair.a.row(FileIndexNamespace.self, key: id)?.name, "final.pdf", "add-wins: the rename outlives the remove")
        // A remove that has seen the file sticks against every copy.
        try pair.a.write(FileIndexNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: id) }
        try pair.sync(FileIndexNamespace.self)
        XCTAssertNil(try pair.b.row(FileIndexNamespace.self, key: id))
        XCTAssertTrue(pair.agree(FileIndexNamespace.self))
    }

    func testSettingsHashOneLeafPerKeyUnderTheKernelsDomainSoOneChangedSettingMovesOneLeaf() throws {
        XCTAssertEqual(SettingsNamespace.leafDomain, Array("synckernel.state.settings".utf8),
                       "the kernel's domain, not the spec's pixie.state.settings: these leaves were never the spec's")
        let pair = try TwoDevices()
        try pair.a.write(SettingsNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<3 { try tx.set("pref.\(index)", to: "v\(index)", now: 100) }
        }
        let before = try pair.a.leaves(namespace: SettingsNamespace.name)
        XCTAssertEqual(before.count, 3, "one leaf per key")
        for leaf in before {
            let row = try XCTUnwrap(try pair.a.row(SettingsNamespace.self, key: leaf.key))
            XCTAssertEqual(leaf.hash, SHA256.hash(domain: SettingsNamespace.leafDomain, SettingsNamespace.leafEncoding(of: row)))
        }
        try pair.a.write(SettingsNamespace.self) { tx throws(SyncKernelError) in try tx.set("pref.1", to: "changed", now: 101) }
        let after = try pair.a.leaves(namespace: SettingsNamespace.name)
        XCTAssertEqual(zip(before, after).filter { $0.0 != $0.1 }.map(\.0.key), [Array("pref.1".utf8)], "exactly one leaf moved")
        try pair.sync(SettingsNamespace.self)
        XCTAssertTrue(pair.agree(SettingsNamespace.self))
        XCTAssertEqual(SettingsNamespace.granularity, .wholeNamespace, "the spec's whole-dictionary exchange is kept for spec peers")
    }
}
