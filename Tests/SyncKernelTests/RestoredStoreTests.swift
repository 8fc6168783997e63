import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// A store brought back from a backup, copied or rolled back must never count a write the fleet
/// already holds: it takes a fresh device epoch before its first write (from the file's
/// identity, its lease file, or a sibling's evidence), and versions that collided anyway are kept
/// apart, never deduplicated.
final class RestoredStoreTests: XCTestCase {
    private typealias Row = RecordNamespace.Row
    private let a = TestWorld.device(0)
    private let b = TestWorld.device(1)

    // MARK: Helpers

    private func save(_ row: Row, _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
    }

    private func key(_ id: String) -> [UInt8] { Array(id.utf8) }

    /// Reconciles both ways through the sketch exchange, every frame encoded and decoded.
    private func sync(_ first: KernelStore, _ second: KernelStore, file: StaticString = #filePath, line: UInt = #line) throws {
        var there = ExchangePump(a: first, b: second)
        try there.run(first.sketchStart(for: RecordNamespace.name, expectedItems: nil), file: file, line: line)
        var back = ExchangePump(a: second, b: first)
        try back.run(second.sketchStart(for: RecordNamespace.name, expectedItems: nil), file: file, line: line)
        XCTAssertEqual(first.stateDigest(), second.stateDigest(), "the pair converged", file: file, line: line)
    }

    /// The visible value of `id` and those of its kept concurrent versions.
    private func values(_ store: KernelStore, _ id: String) throws -> Set<String> {
        let visible = try store.row(RecordNamespace.self, key: key(id)).map { [$0.value] } ?? []
        return Set(visible + (try store.concurrentRows(RecordNamespace.self, key: key(id)).map(\.value)))
    }

    private func vector(_ store: KernelStore, _ id: String) throws -> VersionVector? {
        try store.version(namespace: RecordNamespace.name, key: key(id))?.vector
    }

    /// Closes `store` with its whole state in the database file.
    private func shut(_ store: KernelStore) throws {
        try store.checkpoint()
        store.close()
    }

    /// Replaces the file at `path` by a copy of `source`, the replaced file moved to `kept` (so
    /// the copy cannot be handed its inode number), as a restore that keeps the old file does.
    private func putBackAsNewFile(_ source: String, at path: String, keeping kept: String) throws {
        try FileManager.default.moveItem(atPath: path, toPath: kept)
        try FileManager.default.copyItem(atPath: source, toPath: path)
    }

    /// Deletes the file at `path` and copies `source` there: the file system may reuse the
    /// deleted file's inode number for the copy.
    private func putBackOverDeleted(_ source: String, at path: String) throws {
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: source, toPath: path)
    }

    /// Rewrites the file at `path` with the bytes of `source`, keeping its inode (as `cp` over it does).
    private func overwriteInPlace(_ path: String, with source: String) throws {
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: try Data(contentsOf: URL(fileURLWithPath: source)))
        try handle.close()
    }

    // MARK: The reproducer

    /// The review's finding: a copy of the store is put back after the original edited a key and
    /// synced it; the copy edits the same key. Before device epochs, the copy's edit counted
    /// `{creation: 1, a: 1}` or less, equal to or dominated by the original's edits, and one
    /// edit was dropped silently on both sides.
    private func reproduce(putBack: (_ aside: String, _ path: String) throws -> Void,
                           expecting reasons: Set<EpochReason>) throws {
        let world = try TestWorld()
        let path = world.path()
        let aside = world.path("aside")
        var device = try world.store(device: 0, path: path)
        let sibling = try world.store(device: 1)
        try save(Row(id: "k", value: "v0", updatedAt: 1), device)
        try sync(device, sibling)
        try shut(device)
        try FileManager.default.copyItem(atPath: path, toPath: aside)

        device = try world.store(device: 0, path: path)
        XCTAssertEqual(device.epochChanges, [], "a plain reopen takes no epoch")
        try save(Row(id: "k", value: "original", updatedAt: 2), device)
        try save(Row(id: "k", value: "original, again", updatedAt: 3), device)
        try sync(device, sibling)
        try shut(device)

        try putBack(aside, path)
        device = try world.store(device: 0, path: path)
        XCTAssertEqual(device.epochChanges.count, 1)
        XCTAssertTrue(device.epochChanges.allSatisfy { reasons.contains($0.reason) }, "\(device.epochChanges)")
        XCTAssertEqual(device.deviceEpoch?.number, 1)
        let dimension = try XCTUnwrap(device.deviceEpoch?.dimension)
        XCTAssertNotEqual(dimension, a)
        try save(Row(id: "k", value: "restored", updatedAt: 2), device)
        XCTAssertEqual(try vector(device, "k")?[dimension], 1, "the restored edit counts under the fresh dimension")
        XCTAssertEqual(try vector(device, "k")?[a], 0, "and not under the device's old one, which the fleet holds further")
        try sync(device, sibling)
        for store in [device, sibling] {
            XCTAssertEqual(try values(store, "k"), ["original, again", "restored"], "no edit is lost on either side")
        }
        XCTAssertEqual(try device.row(RecordNamespace.self, key: key("k")), try sibling.row(RecordNamespace.self, key: key("k")),
                       "both sides show the version the tie-break prefers")
    }

    func testACopyPutBackAsANewFileTakesAFreshEpochAndLosesNoEdit() throws {
        try reproduce(putBack: { aside, path in try self.putBackAsNewFile(aside, at: path, keeping: path + ".old") },
                      expecting: [.fileIdentityChanged])
    }

    /// Over a deleted original the copy may get the original's inode number back; the lease
    /// file's write count then shows the database went back.
    func testACopyPutBackOverTheDeletedStoreTakesAFreshEpochAndLosesNoEdit() throws {
        try reproduce(putBack: { aside, path in try self.putBackOverDeleted(aside, at: path) },
                      expecting: [.fileIdentityChanged, .writesMissing])
    }

    func testACopyWrittenOverTheStoreInPlaceTakesAFreshEpochAndLosesNoEdit() throws {
        try reproduce(putBack: { aside, path in try self.overwriteInPlace(path, with: aside) }, expecting: [.writesMissing])
    }

    /// The same story through replicas on the relay: the restored device reports its fresh
    /// epoch, both edits survive and the fleet converges.
    func testARestoredReplicaRejoinsTheFleetWithoutLosingAnEdit() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let aside = world.path("aside")
        func replica(_ index: Int) throws -> Replica {
            try Replica(device: TestWorld.device(index), account: world.account, siblings: [a, b],
                        store: world.store(device: nil, path: paths[index]))
        }
        func converge(_ fleet: Fleet, until time: Int64) {
            fleet.announceAll()
            fleet.run(until: time)
            XCTAssertNotNil(fleet.convergedAt, "the fleet converged")
        }
        let sibling = try replica(1)
        var fleet = Fleet(replicas: [try replica(0), sibling], conditions: RelayConditions(), seed: 3)
        try fleet.save(Row(id: "k", value: "v0", updatedAt: 1), on: 0)
        converge(fleet, until: 5_000)
        try shut(fleet.replicas[0].store)
        try FileManager.default.copyItem(atPath: paths[0], toPath: aside)

        fleet = Fleet(replicas: [try replica(0), sibling], conditions: RelayConditions(), seed: 4)
        converge(fleet, until: 10_000)
        try fleet.save(Row(id: "k", value: "original", updatedAt: 2), on: 0)
        fleet.run(until: 15_000)
        XCTAssertEqual(try sibling.store.row(RecordNamespace.self, key: key("k"))?.value, "original")
        try shut(fleet.replicas[0].store)

        try putBackAsNewFile(aside, at: paths[0], keeping: paths[0] + ".old")
        let restored = try replica(0)
        fleet = Fleet(replicas: [restored, sibling], conditions: RelayConditions(), seed: 5)
        try fleet.save(Row(id: "k", value: "restored", updatedAt: 2), on: 0)
        converge(fleet, until: 40_000)
        XCTAssertEqual(fleet.events(of: 0).first, .storeRolledBack(reason: .fileIdentityChanged, epoch: 1, peer: nil),
                       "the restored replica says so before anything else")
        for replica in fleet.replicas {
            XCTAssertEqual(try values(replica.store, "k"), ["original", "restored"])
        }
    }

    /// Three replicas edit six keys at random; device 0 is put back to an earlier snapshot of its
    /// store again and again, by each kind of restore, and keeps editing. Ground truth is kept
    /// outside the kernel: every edit writes a fresh value and records the values its device held
    /// for the key (visible and concurrent) as what it superseded. At the end every value ever
    /// written is held by every device or superseded by a held one, and no held value is
    /// superseded by another. Before the fleet is put back, it converges, so no edit lived only in
    /// the replaced file; a restore the files cannot show (database and lease file both put back
    /// in place) syncs before its first edit, as only a sibling can reveal it.
    func testRandomRestoresOfOneDeviceNeverLoseAnEdit() throws {
        for seed: UInt64 in [1, 2, 3] {
            try restoreStorm(seed: seed)
        }
    }

    private func restoreStorm(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let world = try TestWorld()
        let paths = (0..<3).map { _ in world.path() }
        let snapshot = (store: world.path("snapshot"), lease: world.path("snapshot-lease"))
        func replica(_ index: Int) throws -> Replica {
            try Replica(device: TestWorld.device(index), account: world.account, siblings: (0..<3).map(TestWorld.device),
                        store: world.store(device: nil, path: paths[index]))
        }
        var replicas = try (0..<3).map(replica)
        var time: Int64 = 0
        var fleet = Fleet(replicas: replicas, conditions: RelayConditions(), seed: seed)
        var superseded: [String: Set<String>] = [:]
        var written: [String: [String]] = [:]
        var restores: [String] = []
        var epochsTaken = 0
        func converge() {
            fleet.announceAll()
            time += 20_000
            fleet.run(until: time)
            XCTAssertNotNil(fleet.convergedAt, "seed \(seed): the fleet converged")
            for index in 0..<3 {
                for case .stormSuspected(let peer, _, _) in fleet.events(of: index) {
                    XCTFail("seed \(seed): device \(index) suspected a storm with \(peer) (a stale change mark after a restore is not a storm)")
                }
            }
        }
        func edit(on index: Int, step: Int) throws {
            let id = "k\(random.next() % 6)"
            let store = fleet.replicas[index].store
            let held = try values(store, id)
            let value = "\(id) by \(index) at \(step)"
            superseded[value] = held.reduce(into: held) { $0.formUnion(superseded[$1] ?? []) }
            written[id, default: []].append(value)
            try fleet.save(Row(id: id, value: value, updatedAt: Int64(step)), on: index)
        }
        var hasSnapshot = false
        for step in 0..<240 {
            time += Int64(random.next() % 200)
            fleet.run(until: time)
            try edit(on: Int(random.next() % 3), step: step)
            if step % 40 == 10 {
                try fleet.replicas[0].store.checkpoint()
                for file in [snapshot.store, snapshot.lease] { try? FileManager.default.removeItem(atPath: file) }
                try FileManager.default.copyItem(atPath: paths[0], toPath: snapshot.store)
                try FileManager.default.copyItem(atPath: paths[0] + "-lease", toPath: snapshot.lease)
                hasSnapshot = true
            }
            guard step % 40 == 30, hasSnapshot else { continue }
            converge()
            epochsTaken += fleet.replicas[0].store.epochChanges.count
            try shut(fleet.replicas[0].store)
            let kind = ["new file", "over the deleted file", "in place", "in place with its lease file"][Int(random.next() % 4)]
            restores.append(kind)
            switch kind {
            case "new file":
                try? FileManager.default.removeItem(atPath: paths[0] + ".old")
                try putBackAsNewFile(snapshot.store, at: paths[0], keeping: paths[0] + ".old")
            case "over the deleted file":
                try putBackOverDeleted(snapshot.store, at: paths[0])
            case "in place":
                try overwriteInPlace(paths[0], with: snapshot.store)
            default:
                try overwriteInPlace(paths[0], with: snapshot.store)
                try overwriteInPlace(paths[0] + "-lease", with: snapshot.lease)
            }
            replicas[0] = try replica(0)
            fleet = Fleet(replicas: replicas, conditions: RelayConditions(), seed: random.next())
            if kind == "in place with its lease file" { converge() }
            try edit(on: 0, step: step)
        }
        converge()
        epochsTaken += fleet.replicas[0].store.epochChanges.count
        XCTAssertGreaterThan(epochsTaken, 0, "seed \(seed): restores \(restores)")
        for index in 1..<3 {
            XCTAssertEqual(fleet.replicas[index].store.epochChanges, [], "seed \(seed): a device never restored takes no epoch")
        }
        for (id, values) in written.sorted(by: { $0.key < $1.key }) {
            let held = try self.values(fleet.replicas[0].store, id)
            for index in 1..<3 {
                XCTAssertEqual(try self.values(fleet.replicas[index].store, id), held, "seed \(seed), \(id): every device holds the same")
            }
            let hidden = held.reduce(into: Set<String>()) { $0.formUnion(superseded[$1] ?? []) }
            for value in values where !held.contains(value) && !hidden.contains(value) {
                XCTFail("seed \(seed), \(id): \(value) was lost (restores: \(restores))")
            }
            for value in held where hidden.contains(value) {
                XCTFail("seed \(seed), \(id): \(value) is held though a held edit superseded it")
            }
        }
    }

    // MARK: What takes an epoch and what does not

    func testAPlainReopenTakesNoEpochAndALaggingLeaseFileIsNoEvidence() throws {
        let world = try TestWorld()
        let path = world.path()
        for round in 0..<3 {
            let store = try world.store(device: 0, path: path)
            XCTAssertEqual(store.epochChanges, [], "round \(round)")
            XCTAssertEqual(store.deviceEpoch?.number, 0)
            XCTAssertEqual(store.deviceEpoch?.dimension, a, "epoch 0 is the device itself: older vectors keep their meaning")
            try save(Row(id: "k", value: "v\(round)", updatedAt: Int64(round)), store)
            try shut(store)
        }
        let store = try world.store(device: 0, path: path)
        XCTAssertEqual(try vector(store, "k")?[a], 2, "three saves, the first one a creation: every edit counted under the device")
        try shut(store)

        let leaseFile = path + "-lease"
        let text = try String(contentsOfFile: leaseFile, encoding: .utf8)
        let attributes = try FileManager.default.attributesOfItem(atPath: leaseFile)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "the lease file is the owner's only")
        XCTAssertTrue(text.hasSuffix("00000000000000000003\n"), "the lease file counts the three committed writes: \(text)")
        try text.replacingOccurrences(of: "00000000000000000003\n", with: "00000000000000000001\n")
            .write(toFile: leaseFile, atomically: false, encoding: .utf8)
        let lagging = try world.store(device: 0, path: path)
        XCTAssertEqual(lagging.epochChanges, [], "a lease file behind the database is a lost update (a crash), not a rollback")
    }

    func testEachKindOfEvidenceTakesAFreshEpochBeforeTheFirstWrite() throws {
        let world = try TestWorld()
        func reopened(_ path: String, device: Int = 0) throws -> [EpochReason] {
            let store = try world.store(device: device, path: path)
            defer { store.close() }
            return store.epochChanges.map(\.reason)
        }
        let path = world.path()
        try shut(try world.store(device: 0, path: path))
        let leaseFile = path + "-lease"

        try FileManager.default.removeItem(atPath: leaseFile)
        XCTAssertEqual(try reopened(path), [.leaseMissing], "moved without its lease file")
        try Data("garbage".utf8).write(to: URL(fileURLWithPath: leaseFile))
        XCTAssertEqual(try reopened(path), [.leaseMissing], "an unreadable lease file vouches for nothing")
        let other = world.path()
        try shut(try world.store(device: 0, path: other))
        try FileManager.default.removeItem(atPath: leaseFile)
        try FileManager.default.copyItem(atPath: other + "-lease", toPath: leaseFile)
        XCTAssertEqual(try reopened(path), [.leaseMismatch], "another store's lease")
        XCTAssertEqual(try reopened(path, device: 1), [.deviceChanged], "a store another device wrote")
        XCTAssertEqual(try reopened(path, device: 1), [], "which is its own from then on")

        let wiped = world.path()
        try shut(try world.store(device: 0, path: wiped))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: wiped + suffix) }
        XCTAssertEqual(try reopened(wiped), [.leaseMismatch],
                       "a new database where a store kept a lease: the device counted there before")

        let legacy = world.path()
        let older = try world.store(device: 0, path: legacy)
        try save(Row(id: "x", value: "old", updatedAt: 5), older)
        try shut(older)
        try FileManager.default.removeItem(atPath: legacy + "-lease")
        try SQLiteTestHelper.execute("""
            DROP TABLE sk_device;
            UPDATE ns_\(RecordNamespace.name) SET vector = NULL, synced_at = NULL, content_vector = NULL;
            """, at: legacy)
        let upgraded = try world.store(device: 0, path: legacy)
        XCTAssertEqual(upgraded.epochChanges, [], "a store from before epochs keeps epoch 0 on its first open")
        XCTAssertEqual(upgraded.deviceEpoch?.dimension, a)
        XCTAssertEqual(try vector(upgraded, "x"), VersionVector(), "a namespace seen for the first time still registers empty vectors")
        try shut(upgraded)
        XCTAssertEqual(try reopened(legacy), [], "and keeps it after")
    }

    func testMarkRestoredTakesAFreshEpochOpenOrClosed() throws {
        let world = try TestWorld()
        let path = world.path()
        let unconfigured = try world.store(device: nil, path: path)
        XCTAssertThrowsError(try unconfigured.markRestored()) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .deviceIdentityNotConfigured)
        }
        unconfigured.close()
        let store = try world.store(device: 0, path: path)
        try save(Row(id: "k", value: "v0", updatedAt: 1), store)
        let epoch = try store.markRestored()
        XCTAssertEqual(epoch.number, 1)
        XCTAssertEqual(store.deviceEpoch, epoch)
        XCTAssertEqual(store.epochChanges.map(\.reason), [.markedRestored])
        XCTAssertEqual(store.epochChanges.map(\.epoch), [epoch])
        try save(Row(id: "k", value: "v1", updatedAt: 2), store)
        XCTAssertEqual(try vector(store, "k")?[epoch.dimension], 1, "the next edit counts under the fresh dimension")
        try shut(store)

        let reopened = try world.store(device: 0, path: path)
        XCTAssertEqual(reopened.epochChanges, [], "the epoch is recorded: a reopen continues it")
        XCTAssertEqual(reopened.deviceEpoch, epoch)
        try shut(reopened)

        try KernelStore.markRestored(storeAt: path)
        let restored = try world.store(device: 0, path: path)
        XCTAssertEqual(restored.epochChanges.map(\.reason), [.markedRestored], "marked while closed, by a restore tool")
        XCTAssertEqual(restored.deviceEpoch?.number, 2)
        XCTAssertNotEqual(restored.deviceEpoch?.dimension, epoch.dimension)
    }

    /// Two copies of one store that take the same epoch number still get different dimensions
    /// (each draws its own nonce), and a seeded source makes the draw repeatable.
    func testEpochDimensionsAreFreshPerCopyAndRepeatableUnderASeed() throws {
        func dimensions(seed: UInt64) throws -> [DeviceID] {
            let world = try TestWorld()
            let path = world.path()
            let entropy = EntropySource.seeded(seed)
            let namespaces = try NamespaceSet([RecordNamespace.self])
            let original = try KernelStore(path: path, namespaces: namespaces, entropy: entropy)
            try original.configureDevice(a)
            try shut(original)
            let copy = world.path("copy")
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            var out: [DeviceID] = []
            for file in [path, copy] {
                let store = try KernelStore(path: file, namespaces: namespaces, entropy: entropy)
                try store.configureDevice(a)
                if file == path { try store.markRestored() }
                out.append(try XCTUnwrap(store.deviceEpoch?.dimension))
                XCTAssertEqual(store.deviceEpoch?.number, 1)
                store.close()
            }
            return out
        }
        let first = try dimensions(seed: 9)
        XCTAssertNotEqual(first[0], first[1], "the original and its copy both at epoch 1, under different dimensions")
        XCTAssertEqual(try dimensions(seed: 9), first, "a seeded source repeats the run")
        XCTAssertNotEqual(try dimensions(seed: 10), first)
    }

    // MARK: Evidence from a sibling

    /// A rollback the files cannot show (the database and its lease file both copied aside and
    /// both written back in place) is caught by the first response that counts this device
    /// further than the store: the store takes a fresh epoch at once, so its next edit of a key
    /// it has not received yet is concurrent with the fleet's, not dominated by it.
    func testASiblingShowingTheStoreBehindItsOwnCountsMakesItTakeAFreshEpoch() throws {
        let world = try TestWorld()
        let path = world.path()
        let asides = (store: world.path("aside"), lease: world.path("aside-lease"))
        var device = try world.store(device: 0, path: path)
        let sibling = try world.store(device: 1)
        try save(Row(id: "j", value: "j0", updatedAt: 1), device)
        try save(Row(id: "k", value: "k0", updatedAt: 1), device)
        try sync(device, sibling)
        try shut(device)
        try FileManager.default.copyItem(atPath: path, toPath: asides.store)
        try FileManager.default.copyItem(atPath: path + "-lease", toPath: asides.lease)

        device = try world.store(device: 0, path: path)
        try save(Row(id: "j", value: "j1", updatedAt: 2), device)
        try save(Row(id: "j", value: "j2", updatedAt: 3), device)
        try save(Row(id: "k", value: "k1", updatedAt: 2), device)
        try sync(device, sibling)
        try shut(device)
        try overwriteInPlace(path, with: asides.store)
        try overwriteInPlace(path + "-lease", with: asides.lease)

        device = try world.store(device: 0, path: path)
        XCTAssertEqual(device.epochChanges, [], "a whole-volume rollback leaves no trace in the files")
        var outcome: ApplyOutcome?
        for response in try sibling.respond(toKeys: [key("k")], namespace: RecordNamespace.name) {
            outcome = try device.apply(response)
        }
        let change = try XCTUnwrap(outcome?.epochChange, "the sibling's k counts the device at 1, the store at 0")
        XCTAssertEqual(change.reason, .peerEvidence)
        XCTAssertEqual(change.epoch.number, 1)
        XCTAssertEqual(device.deviceEpoch, change.epoch)
        XCTAssertEqual(device.epochChanges, [change])
        try save(Row(id: "j", value: "j-restored", updatedAt: 2), device)
        try sync(device, sibling)
        for store in [device, sibling] {
            XCTAssertEqual(try values(store, "j"), ["j2", "j-restored"], "the edit made before j came back is kept")
        }
        try shut(device)
        XCTAssertEqual(try world.store(device: 0, path: path).deviceEpoch, change.epoch, "the epoch taken in the merge is recorded")
    }

    func testTheReplicaReportsASiblingsEvidenceOnce() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        let store = fleet.replicas[0].store
        let response = ReconcileResponse(namespace: RecordNamespace.name, rows: [
            ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "k", value: "from the past", updatedAt: 1)),
                       vector: VersionVector([a: 4])),
        ], tombstones: [])
        let frame = SyncFrame(account: world.account, schema: store.namespaces.schema, body: .reconcileResponse(response))
        fleet.inject(frame.encoded(), into: 0, from: b)
        fleet.inject(frame.encoded(), into: 0, from: b)
        let reports = fleet.events(of: 0).filter { if case .storeRolledBack = $0 { return true } else { return false } }
        XCTAssertEqual(reports, [.storeRolledBack(reason: .peerEvidence, epoch: 1, peer: b)],
                       "the second response counts the old dimension, which is no longer this device's")
        XCTAssertEqual(store.deviceEpoch?.number, 1)
    }

    // MARK: Collisions that already happened

    /// Two versions of one key with one vector and different content (two writes counted alike)
    /// are both kept, whichever arrives first, on every device, with the same vectors; a later
    /// edit that saw both supersedes both.
    func testVersionsWithOneVectorAndDifferentContentAreBothKeptInAnyOrder() throws {
        let world = try TestWorld()
        let collided = VersionVector([b: 3])
        let first = ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "k", value: "first", updatedAt: 1)), vector: collided)
        let second = ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "k", value: "second", updatedAt: 1)), vector: collided)
        func merged(_ order: [ShippedRow]) throws -> (KernelStore, [ApplyOutcome]) {
            let store = try world.store(device: 0)
            let outcomes = try order.map { try store.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [$0], tombstones: [])) }
            return (store, outcomes)
        }
        let (forward, forwardOutcomes) = try merged([first, second])
        let (backward, backwardOutcomes) = try merged([second, first])
        XCTAssertEqual(forwardOutcomes.map(\.collidedKeys), [[], [key("k")]])
        XCTAssertEqual(backwardOutcomes.map(\.collidedKeys), [[], [key("k")]])
        XCTAssertEqual(forwardOutcomes.last?.keysToShipBack, [key("k")], "the sender holds one of the two: it gets both back")
        for store in [forward, backward] {
            XCTAssertEqual(try values(store, "k"), ["first", "second"], "neither is deduplicated away")
        }
        XCTAssertEqual(try forward.row(RecordNamespace.self, key: key("k")), try backward.row(RecordNamespace.self, key: key("k")))
        XCTAssertEqual(try vector(forward, "k"), try vector(backward, "k"), "the marks are named by content, not by who met them")
        XCTAssertEqual(try vector(forward, "k")?[b], 3)
        XCTAssertEqual(try vector(forward, "k")?.counters.count, 3, "the collided dimension and one mark per content")

        let late = try world.store(device: 1)
        _ = try late.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [first], tombstones: []))
        try sync(late, forward)
        XCTAssertEqual(try values(late, "k"), ["first", "second"], "an unmarked copy meets the marked pair and joins it")
        let again = try late.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [second], tombstones: []))
        XCTAssertEqual(again.collidedKeys, [], "an unmarked copy of a version already told apart is absorbed, not reported again")
        XCTAssertEqual(again.rowsApplied, 0)
        XCTAssertEqual(try values(late, "k"), ["first", "second"])

        try save(Row(id: "k", value: "resolved", updatedAt: 5), late)
        try sync(late, forward)
        for store in [late, forward] {
            XCTAssertEqual(try values(store, "k"), ["resolved"], "an edit that saw both versions supersedes both")
        }
    }

    func testADeleteAndAnEditCountedAlikeAreBothKept() throws {
        let world = try TestWorld()
        let store = try world.store(device: 0)
        let collided = VersionVector([b: 2])
        let edit = ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "k", value: "edited", updatedAt: 1)), vector: collided)
        _ = try store.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [], tombstones: [Tombstone(key: key("k"), vector: collided)]))
        let outcome = try store.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [edit], tombstones: []))
        XCTAssertEqual(outcome.collidedKeys, [key("k")])
        XCTAssertEqual(try values(store, "k"), ["edited"], "add wins")
        let tombstones = try store.tombstones(namespace: RecordNamespace.name)
        XCTAssertEqual(tombstones.count, 1, "the delete is kept beside the edit, not replaced by it")
        XCTAssertEqual(tombstones.first?.vector[b], 2)
        XCTAssertEqual(tombstones.first?.vector.relation(to: try XCTUnwrap(store.version(namespace: RecordNamespace.name,
                                                                                         key: key("k"))?.contentVector)),
                       .concurrent)
    }

    func testVersionsWithOneVectorAndOneLeafAreOneVersion() throws {
        let world = try TestWorld()
        let store = try world.store(device: 0)
        let vector = VersionVector([b: 1])
        let here = ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "k", value: "v", updatedAt: 1, observedBy: "phone")),
                              vector: vector)
        let there = ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "k", value: "v", updatedAt: 1, observedBy: "laptop")),
                               vector: vector)
        _ = try store.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [here], tombstones: []))
        let outcome = try store.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [there], tombstones: []))
        XCTAssertEqual(outcome.collidedKeys, [], "rows that differ only in an excluded field are one write")
        XCTAssertEqual(try store.concurrentRows(RecordNamespace.self, key: key("k")), [])
        XCTAssertEqual(try self.vector(store, "k"), vector, "no mark")
    }

    func testTheReplicaReportsACollisionItToldApart() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        let store = fleet.replicas[0].store
        let collided = VersionVector([b: 3])
        _ = try store.apply(ReconcileResponse(namespace: RecordNamespace.name, rows: [
            ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "k", value: "first", updatedAt: 1)), vector: collided),
        ], tombstones: []))
        let response = ReconcileResponse(namespace: RecordNamespace.name, rows: [
            ShippedRow(row: RecordNamespace.rowEncoding(of: Row(id: "k", value: "second", updatedAt: 1)), vector: collided),
        ], tombstones: [])
        let frame = SyncFrame(account: world.account, schema: store.namespaces.schema, body: .reconcileResponse(response))
        fleet.inject(frame.encoded(), into: 0, from: b)
        XCTAssertTrue(fleet.events(of: 0).contains(.versionsCollided(peer: b, namespace: RecordNamespace.name, keys: [key("k")])))
        XCTAssertEqual(try values(store, "k"), ["first", "second"])
    }
}
