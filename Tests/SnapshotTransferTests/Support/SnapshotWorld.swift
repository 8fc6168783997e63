import Foundation
import NotebookNamespace
@testable import SnapshotTransfer
import SyncKernel
import SyncKernelSimulator
import XCTest

/// A private temporary folder with stores of fixed devices of one account, and notebook rows
/// drawn from one seeded generator.
///
/// Invariants: the same seed makes the same rows; the folder exists for the world's life and is
/// removed with it; every store the world opens is closed with it.
final class SnapshotWorld {
    /// The account every store of the world belongs to.
    static let account: [UInt8] = SHA256.hash(domain: Array("snapshot-tests.account".utf8))
    /// Another account.
    static let otherAccount: [UInt8] = SHA256.hash(domain: Array("snapshot-tests.other-account".utf8))
    /// The wall-clock time rows are stamped at.
    static let epoch = Date(timeIntervalSince1970: 1_790_000_000)

    let directory: String
    let seed: UInt64
    var random: SeededGenerator
    private var opened: [KernelStore] = []

    init(seed: UInt64 = 1) throws {
        directory = NSTemporaryDirectory() + "synckernel-snapshot-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.seed = seed
        random = SeededGenerator(seed: seed)
    }

    deinit {
        for store in opened { store.close() }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The id of device `index`, fixed for the world's seed.
    func device(_ index: Int) throws -> DeviceID {
        try DeviceKeyPair(seed: SHA256.hash(domain: Array("snapshot-tests.device".utf8), Array("\(seed)/\(index)".utf8))).deviceID
    }

    /// A new store named `name` in the world's folder, configured as device `device`.
    func store(_ name: String, device: Int, namespaces: [any SyncNamespace.Type] = [NotebookNamespace.self]) throws -> KernelStore {
        let store = try KernelStore(path: "\(directory)/\(name).sqlite", namespaces: NamespaceSet(namespaces),
                                    entropy: .seeded(seed &+ UInt64(device)))
        try store.configureDevice(self.device(device))
        opened.append(store)
        return store
    }

    /// `count` fresh notes.
    func notes(_ count: Int, at clock: Date = SnapshotWorld.epoch) -> [Note] {
        (0..<count).map { index in
            Note(id: random.bytes(16), title: "Note \(index)", body: "body \(random.next() % 1_000_000) of note \(index)",
                 tags: ["t\(random.next() % 8)"], createdAt: clock, updatedAt: clock)
        }
    }

    /// A notebook store of device 0 holding `count` notes, with concurrent versions kept beside
    /// some rows, deletes, and a concurrent delete kept beside a live row: device 1 received
    /// every note, edited some while device 0 edited them too, deleted others, and shipped its
    /// state back.
    func richNotebook(_ name: String, rows count: Int) throws -> KernelStore {
        let source = try store(name, device: 0)
        let peer = try store(name + "-peer", device: 1)
        let notes = self.notes(count)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        let keys = notes.map(\.id)
        try Self.ship(keys, from: source, to: peer)
        let edited = Array(notes.prefix(count / 10))
        let deleted = Array(notes.dropFirst(count / 10).prefix(count / 20))
        let later = SnapshotWorld.epoch.addingTimeInterval(60)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for var note in edited {
                note.body += " (edited on 0)"
                note.updatedAt = later
                try tx.save(note)
            }
        }
        try peer.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for var note in edited.prefix(edited.count / 2) {
                note.body += " (edited on 1)"
                note.updatedAt = later
                try tx.save(note)
            }
            for note in edited.dropFirst(edited.count / 2) { try tx.delete(key: note.id) }
            for note in deleted { try tx.delete(key: note.id) }
        }
        try Self.ship(keys, from: peer, to: source)
        return source
    }

    /// Ships the rows and deletes of `keys` from one store to another, as the reconcile does.
    static func ship(_ keys: [[UInt8]], from source: KernelStore, to target: KernelStore) throws {
        for response in try source.respond(toKeys: keys, namespace: NotebookNamespace.name) { try target.apply(response) }
    }

    /// Every key's bookkeeping in `store`, namespace by namespace: the visible row, its
    /// RowVersion, its kept concurrent rows and its delete versions, for comparing two stores.
    static func bookkeeping(of store: KernelStore) throws -> [String] {
        var lines: [String] = []
        for name in store.namespaces.names {
            var keys = Set(try store.leaves(namespace: name).map(\.key))
            keys.formUnion(try store.tombstones(namespace: name).map(\.key))
            for key in keys.sorted(by: [UInt8].keyPrecedes) {
                let version = try store.version(namespace: name, key: key)
                let deletes = try store.tombstones(namespace: name).filter { $0.key == key }.map { Hex.encode($0.vector.encoded()) }
                lines.append("\(name) \(Hex.encode(key)) leaf \(Hex.encode(try store.leafHash(namespace: name, key: key) ?? []))"
                             + " v \(version.map { Hex.encode($0.vector.encoded()) } ?? "-")"
                             + " c \(version.map { Hex.encode($0.contentVector.encoded()) } ?? "-")"
                             + " s \(version?.syncedAt ?? -1) d \(deletes.sorted())")
            }
        }
        return lines
    }

    /// The plaintext snapshot of `store`, whole (for small stores in tests).
    static func plaintext(of store: KernelStore, account: [UInt8] = SnapshotWorld.account, pageKeys: Int = 4_096,
                          pageBytes: Int = 1 << 20) throws -> [[UInt8]] {
        var exporter = SnapshotExporter(store: store, account: account, pageKeys: pageKeys, pageBytes: pageBytes)
        var records: [[UInt8]] = []
        while let record = try exporter.next() { records.append(record) }
        return records
    }

    /// Imports plaintext records into `store`.
    static func importPlaintext(_ records: [[UInt8]], into store: KernelStore, account: [UInt8] = SnapshotWorld.account,
                                rowsPerTransaction: Int = 20_000) async throws -> SnapshotImportOutcome {
        var importer = SnapshotImporter(store: store, account: account, rowsPerTransaction: rowsPerTransaction)
        for record in records { try await importer.consume(record) }
        return try await importer.finish()
    }
}

/// The helper checked against what it promises: it mints stable devices, fresh stores and a notebook that ships whole, so a broken helper fails on
/// its own instead of making the tests that use it pass or fail for the wrong reason.
final class SnapshotWorldSelfTests: XCTestCase {
    func testTheWorldMintsStableDevicesFreshStoresAndARichNotebookThatShipsWhole() async throws {
        let world = try SnapshotWorld(seed: 3)
        XCTAssertEqual(try world.device(1), try SnapshotWorld(seed: 3).device(1), "devices are fixed by the seed")
        XCTAssertNotEqual(try world.device(0), try world.device(1))
        XCTAssertEqual(world.notes(5).count, 5)
        XCTAssertEqual(Set(world.notes(20).map(\.id)).count, 20, "fresh ids")

        let rich = try world.richNotebook("rich", rows: 40)
        let lines = try SnapshotWorld.bookkeeping(of: rich)
        XCTAssertEqual(lines.count, 40, "every note's key, live or deleted, has a line")
        XCTAssertTrue(lines.contains { $0.contains(" d [\"") }, "some keys hold delete versions")
        XCTAssertGreaterThan(try rich.leaves(namespace: "notebook").count, 0)

        let copy = try world.store("copy", device: 2)
        XCTAssertNotEqual(try SnapshotWorld.bookkeeping(of: copy), lines, "a fresh store holds nothing")
        let records = try SnapshotWorld.plaintext(of: rich)
        XCTAssertFalse(records.isEmpty)
        _ = try await SnapshotWorld.importPlaintext(records, into: copy)
        XCTAssertEqual(try SnapshotWorld.bookkeeping(of: copy), lines, "a snapshot carries the whole bookkeeping")
        let directory = world.directory
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory))
    }
}
