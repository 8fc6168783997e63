import Foundation
import NotebookNamespace
import SyncKernel
import XCTest

final class NotebookNamespaceTests: XCTestCase {
    private var directory = ""
    private let a = try! DeviceKeyPair(seed: [UInt8](repeating: 0xa, count: 32)).deviceID
    private let b = try! DeviceKeyPair(seed: [UInt8](repeating: 0xb, count: 32)).deviceID
    private let noteID = [UInt8](repeating: 7, count: 16)

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "notebook-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func store(_ device: DeviceID, _ name: String) throws -> KernelStore {
        let store = try KernelStore(path: "\(directory)/\(name).sqlite", namespaces: NamespaceSet([NotebookNamespace.self]))
        try store.configureDevice(device)
        return store
    }

    private func at(_ seconds: Double) -> Date { Date(timeIntervalSince1970: seconds) }

    private func save(_ note: Note, _ store: KernelStore) throws {
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
    }

    @discardableResult
    private func pull(_ puller: KernelStore, from responder: KernelStore) throws -> ApplyOutcome? {
        var outcome: ApplyOutcome?
        for response in try responder.respond(to: puller.reconcileRequest(for: NotebookNamespace.name)) {
            outcome = try puller.apply(response)
        }
        return outcome
    }

    private func vector(_ store: KernelStore) throws -> VersionVector? {
        try store.version(namespace: NotebookNamespace.name, key: noteID)?.vector
    }

    private func note(_ store: KernelStore) throws -> Note? {
        try store.row(NotebookNamespace.self, key: noteID)
    }

    /// The trace from the spec: B's clock is behind, yet B's later edit wins because it descends from A's.
    func testNotebookCausalEditBeatsWallClock() throws {
        let deviceA = try store(a, "a")
        let deviceB = try store(b, "b")
        let original = Note(id: noteID, title: "v1", body: "", createdAt: at(100), updatedAt: at(100))
        let created = DeviceID.creation(key: noteID, leaf: NotebookNamespace.leaf(of: original).hash)
        try save(original, deviceA)
        XCTAssertEqual(try vector(deviceA), VersionVector([created: 1]))
        try pull(deviceB, from: deviceA)
        XCTAssertEqual(try note(deviceB)?.title, "v1")
        XCTAssertEqual(try vector(deviceB), VersionVector([created: 1]))

        var edited = try XCTUnwrap(try note(deviceB))
        edited.title = "v2"
        edited.updatedAt = at(50)
        try save(edited, deviceB)
        XCTAssertEqual(try vector(deviceB), VersionVector([created: 1, b: 1]))

        try pull(deviceA, from: deviceB)
        XCTAssertEqual(try note(deviceA)?.title, "v2", "the descendant wins; 100 vs 50 played no part")
        XCTAssertEqual(try note(deviceA)?.updatedAt, at(50))
        XCTAssertEqual(try vector(deviceA), VersionVector([created: 1, b: 1]))
        XCTAssertEqual(deviceA.stateDigest(), deviceB.stateDigest())
    }

    func testIndependentlyMaterialisedRowsAreConcurrentAndResolveAlikeOnBothSides() throws {
        let deviceA = try store(a, "a")
        let deviceB = try store(b, "b")
        let fromA = Note(id: noteID, title: "from A", body: "x", createdAt: at(1), updatedAt: at(500))
        let fromB = Note(id: noteID, title: "from B", body: "y", createdAt: at(1), updatedAt: at(10))
        try save(fromA, deviceA)
        try save(fromB, deviceB)
        XCTAssertEqual(try vector(deviceA)?.relation(to: try XCTUnwrap(try vector(deviceB))), .concurrent)
        try pull(deviceA, from: deviceB)
        try pull(deviceB, from: deviceA)
        XCTAssertEqual(try note(deviceA), try note(deviceB))
        XCTAssertEqual(deviceA.stateDigest(), deviceB.stateDigest())
        XCTAssertEqual(try vector(deviceA), VersionVector([DeviceID.creation(key: noteID, leaf: NotebookNamespace.leaf(of: fromA).hash): 1,
                                                           DeviceID.creation(key: noteID, leaf: NotebookNamespace.leaf(of: fromB).hash): 1]),
                       "different content created on two devices: two creations, concurrent")
    }

    func testTheSameContentCreatedOnTwoDevicesIsOneWriteThatADeleteReplacesEverywhere() throws {
        let deviceA = try store(a, "a")
        let deviceB = try store(b, "b")
        let imported = Note(id: noteID, title: "imported", body: "same", createdAt: at(1), updatedAt: at(1))
        try save(imported, deviceA)
        try save(imported, deviceB)
        XCTAssertEqual(try vector(deviceA), try vector(deviceB), "one creation, counted alike")
        try deviceA.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: noteID) }
        try pull(deviceB, from: deviceA)
        try pull(deviceA, from: deviceB)
        XCTAssertNil(try note(deviceA), "the delete replaced the copy B made too")
        XCTAssertNil(try note(deviceB))
        XCTAssertEqual(deviceA.stateDigest(), deviceB.stateDigest())
    }

    func testOffloadingKeepsTheLeafAndIsNotAnEdit() throws {
        let deviceA = try store(a, "a")
        let body = "a long body that a phone would rather not keep"
        try save(Note(id: noteID, title: "t", body: body, createdAt: at(1), updatedAt: at(2)), deviceA)
        let before = deviceA.stateDigest()
        let vectorBefore = try vector(deviceA)
        let outcome = try deviceA.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.markOffloaded(id: noteID, contentHash: NotebookNamespace.bodyDigest(of: body), holder: [1, 2, 3])
        }
        XCTAssertTrue(outcome.changedNamespaces.isEmpty, "offloading does not dirty the state")
        XCTAssertEqual(deviceA.stateDigest(), before, "offloaded and resident hash the same")
        XCTAssertEqual(try vector(deviceA), vectorBefore, "offloading does not bump the vector")
        XCTAssertEqual(try note(deviceA)?.body, "")
        XCTAssertEqual(try note(deviceA)?.updatedAt, at(2))

        try deviceA.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.restoreBody(id: noteID, body: body) }
        XCTAssertEqual(deviceA.stateDigest(), before, "un-offloading leaves the digest bit-identical")
        XCTAssertEqual(try vector(deviceA), vectorBefore)
    }

    func testRejectOffloadWhoseHashDoesNotMatchTheResidentBody() throws {
        let deviceA = try store(a, "a")
        try save(Note(id: noteID, title: "t", body: "real", createdAt: at(1), updatedAt: at(2)), deviceA)
        XCTAssertThrowsError(try deviceA.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.markOffloaded(id: noteID, contentHash: NotebookNamespace.bodyDigest(of: "other"), holder: [1])
        }) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .namespaceRefused) }
        XCTAssertEqual(try note(deviceA)?.body, "real")
        XCTAssertThrowsError(try deviceA.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.restoreBody(id: noteID, body: "real")
        }, "restoring a resident note is refused")
    }

    func testPointersNamingDifferentHoldersAgreeAndAPointerToOtherContentDiverges() throws {
        let body = "shared text"
        var resident = Note(id: noteID, title: "t", body: body, createdAt: at(1), updatedAt: at(2))
        var pointerOne = resident
        pointerOne.body = ""
        pointerOne.bodyOffloaded = true
        pointerOne.contentHash = NotebookNamespace.bodyDigest(of: body)
        pointerOne.offloadHolderPubkey = [1]
        var pointerTwo = pointerOne
        pointerTwo.offloadHolderPubkey = [2]
        XCTAssertEqual(NotebookNamespace.leaf(of: resident), NotebookNamespace.leaf(of: pointerOne))
        XCTAssertEqual(NotebookNamespace.leaf(of: pointerOne), NotebookNamespace.leaf(of: pointerTwo))
        var elsewhere = pointerOne
        elsewhere.contentHash = NotebookNamespace.bodyDigest(of: "different text")
        XCTAssertNotEqual(NotebookNamespace.leaf(of: elsewhere), NotebookNamespace.leaf(of: resident))
        resident.title = "t2"
        XCTAssertNotEqual(NotebookNamespace.leaf(of: resident), NotebookNamespace.leaf(of: pointerOne))
    }

    func testAResidentDeviceKeepsItsBytesWhenTheWinnerIsAPointerToTheSameContent() throws {
        let deviceA = try store(a, "a")
        let deviceB = try store(b, "b")
        let body = "the body"
        try save(Note(id: noteID, title: "t", body: body, createdAt: at(1), updatedAt: at(2)), deviceA)
        try pull(deviceB, from: deviceA)
        try deviceA.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.markOffloaded(id: noteID, contentHash: NotebookNamespace.bodyDigest(of: body), holder: [9])
            guard var note = try tx.row(forKey: noteID) else { throw SyncKernelError(.namespaceRefused, "missing") }
            note.title = "renamed"
            note.updatedAt = Date(timeIntervalSince1970: 3)
            try tx.save(note)
        }
        try pull(deviceB, from: deviceA)
        let adopted = try XCTUnwrap(try note(deviceB))
        XCTAssertEqual(adopted.title, "renamed")
        XCTAssertEqual(adopted.body, body, "B keeps its resident bytes")
        XCTAssertFalse(adopted.bodyOffloaded)
        XCTAssertEqual(deviceA.stateDigest(), deviceB.stateDigest())
    }

    func testGoldenLeafVector() throws {
        let note = Note(id: Array(0..<16), title: "Golden", body: "body", tags: ["a", "b"],
                        createdAt: at(1_700_000_000.75), updatedAt: at(1_700_000_100))
        let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/notebook-leaf.golden")
        let lines = try String(contentsOf: fixture, encoding: .utf8).split(separator: "\n").map(String.init)
        let fields = Dictionary(uniqueKeysWithValues: lines.filter { !$0.hasPrefix("#") }.compactMap { line -> (String, String)? in
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            return parts.count == 2 ? (parts[0], parts[1]) : nil
        })
        XCTAssertEqual(hex(NotebookNamespace.leafEncoding(of: note)), fields["leaf-encoding"])
        XCTAssertEqual(hex(NotebookNamespace.leaf(of: note).hash), fields["leaf-hash"])
        XCTAssertEqual(hex(NotebookNamespace.rowEncoding(of: note)), fields["row-encoding"])
        XCTAssertEqual(try NotebookNamespace.decodeRow(bytes: NotebookNamespace.rowEncoding(of: note)),
                       Note(id: Array(0..<16), title: "Golden", body: "body", tags: ["a", "b"],
                            createdAt: at(1_700_000_000), updatedAt: at(1_700_000_100)))
    }

    func testRejectSavingAnOffloadedNoteThatStillHoldsItsBody() throws {
        let deviceA = try store(a, "a")
        try save(Note(id: noteID, title: "kept", body: "body", createdAt: at(1), updatedAt: at(1)), deviceA)
        let digest = deviceA.stateDigest()
        var broken = Note(id: noteID, title: "changed", body: "still here", createdAt: at(1), updatedAt: at(2))
        broken.bodyOffloaded = true
        broken.contentHash = NotebookNamespace.bodyDigest(of: "still here")
        XCTAssertThrowsError(try save(broken, deviceA)) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .rowRejected)
        }
        XCTAssertEqual(try note(deviceA)?.title, "kept", "nothing was written")
        XCTAssertEqual(deviceA.stateDigest(), digest)
        deviceA.close()
        XCTAssertEqual(try store(a, "a").rows(NotebookNamespace.self).count, 1, "the store still opens")
    }

    func testRejectMalformedNotes() {
        XCTAssertThrowsError(try NotebookNamespace.decodeRow(.array([])))
        var offloadedWithBody = Note(id: noteID, title: "t", body: "still here", createdAt: at(1), updatedAt: at(1))
        offloadedWithBody.bodyOffloaded = true
        offloadedWithBody.contentHash = NotebookNamespace.bodyDigest(of: "still here")
        XCTAssertThrowsError(try NotebookNamespace.decodeRow(bytes: NotebookNamespace.rowEncoding(of: offloadedWithBody)))
        var shortID = offloadedWithBody
        shortID.id = [1, 2]
        shortID.bodyOffloaded = false
        XCTAssertThrowsError(try NotebookNamespace.decodeRow(bytes: NotebookNamespace.rowEncoding(of: shortID)))
    }

    private func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}
