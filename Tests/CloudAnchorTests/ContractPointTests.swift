import Foundation
import XCTest
@testable import CloudAnchor

/// One or more tests per point of the SyncEngine contract, on the folder backend and on the
/// fault-injecting backend.
final class ContractPointTests: XCTestCase {
    // MARK: 1. Availability gate

    func testContractPoint1_noAccountAndNeedsConsentReturnUnavailableWithoutTouchingTheCloud() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            rig.availability.set(.noAccount)
            let first = try await engine.sync(snapshot([("a.txt", "alpha")]))
            XCTAssertEqual(first, .unavailable(.noAccount))
            rig.availability.set(.needsConsent)
            let second = try await engine.sync(snapshot([("a.txt", "alpha")]))
            XCTAssertEqual(second, .unavailable(.needsConsent))
            let contents = try await rig.remoteContents()
            XCTAssertEqual(contents, [:])
            if let faults = rig.faults { XCTAssertEqual(faults.journal(), [], "the cloud was touched") }
        }
    }

    // MARK: 2. Remote truth

    func testContractPoint2_stateEntriesMissingRemotelyAreDroppedAndUploadAgain() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            let files = [("a.txt", "alpha"), ("b.txt", "beta")]
            _ = try await engine.sync(snapshot(files))
            try FileManager.default.removeItem(at: rig.remoteRoot.appendingPathComponent("a.txt"))
            let report = syncedReport(try await engine.sync(snapshot(files)))
            XCTAssertEqual(report.uploaded, ["a.txt", markerPath])
            let contents = try await rig.remoteContents()
            XCTAssertEqual(contents["a.txt"], Data("alpha".utf8))
        }
    }

    /// Before: the state file was trusted for a file the storage still listed at the recorded
    /// size, so a remote copy rewritten behind the engine's back (same size, other bytes) was
    /// never uploaded again. Now the state records the content tag after each put and a listed
    /// tag that differs demotes the entry to an adopted one, which a hash-compared entry uploads.
    func testContractPoint2_aRemoteCopyWhoseTagChangedBehindTheEnginesBackIsUploadedAgain() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            let files = [("a.txt", "alpha"), ("b.txt", "beta")]
            _ = try await engine.sync(snapshot(files))
            let url = rig.remoteRoot.appendingPathComponent("b.txt")
            let handle = try FileHandle(forWritingTo: url)
            try handle.write(contentsOf: Data("BETA".utf8))
            try handle.close()
            let report = syncedReport(try await engine.sync(snapshot(files)))
            XCTAssertEqual(report.uploaded, ["b.txt", markerPath])
            let contents = try await rig.remoteContents()
            XCTAssertEqual(contents["b.txt"], Data("beta".utf8))
        }
    }

    func testContractPoint2_unknownRemoteFilesAreAdoptedWithSizeTrustedAndHashUnknown() async throws {
        try await forEachBackend { rig in
            try rig.putRemote("sized.bin", "12345")
            try rig.putRemote("hashed.txt", "same")
            try rig.putRemote(markerPath, "marker v1")
            let engine = try rig.engine()
            let sized = SyncEntry(path: "sized.bin", size: 5, source: .bytes(Data("54321".utf8)))
            let report = syncedReport(try await engine.sync(
                snapshot([("hashed.txt", "same")], extra: [sized])))
            XCTAssertEqual(report.uploaded, ["hashed.txt", markerPath], "sized entries are trusted, hashed ones re-upload")
            let state = try await rig.savedState()
            XCTAssertEqual(state.entries["sized.bin"].map { [String($0.size), $0.hash ?? "nil"] }, ["5", "nil"])
            XCTAssertEqual(state.entries["hashed.txt"]?.hash, ContentHash.sha256(Data("same".utf8)))
        }
    }

    // MARK: 3. Identity

    func testContractPoint3_anAccountSwitchResetsTheStateAndUploadsEverythingAgain() async throws {
        try await forEachBackend { rig in
            let files = [("a.txt", "alpha"), ("b.txt", "beta")]
            _ = try await rig.engine().sync(snapshot(files))
            let other = try rig.switchedAccount()
            let report = syncedReport(try await other.engine().sync(snapshot(files)))
            XCTAssertEqual(report.uploaded, ["a.txt", "b.txt", markerPath])
            let state = try await other.savedState()
            let expected = try await other.storage.identityKey()
            XCTAssertEqual(state.identity, expected)
            let previous = try await rig.storage.identityKey()
            XCTAssertNotEqual(state.identity, previous)
        }
    }

    func testContractPoint3_aChangedIdentityKeyOverTheSameFilesNeverMergesTheirHashes() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            faults.overrideIdentity("account-a")
            let files = [("a.txt", "alpha"), ("b.txt", "beta")]
            _ = try await rig.engine().sync(snapshot(files))
            faults.overrideIdentity("account-b")
            let report = syncedReport(try await rig.engine().sync(snapshot(files)))
            XCTAssertEqual(report.uploaded, ["a.txt", "b.txt", markerPath])
            let identity = try await rig.savedState().identity
            XCTAssertEqual(identity, "account-b")
        }
    }

    // MARK: 4. Empty guard

    func testContractPoint4_emptySnapshotOverAnUnsyncedBackupIsRestorePendingAndWritesNothing() async throws {
        try await forEachBackend { rig in
            try rig.putRemote("a.txt", "alpha")
            try rig.putRemote(markerPath, "marker")
            let before = try await rig.remoteContents()
            let outcome = try await rig.engine().sync(snapshot([]))
            XCTAssertEqual(outcome, .unavailable(.restorePending))
            let scaffold = try await rig.engine().sync(snapshot([("scaffold.txt", "x")], isEmpty: true))
            XCTAssertEqual(scaffold, .unavailable(.restorePending))
            let after = try await rig.remoteContents()
            XCTAssertEqual(after, before)
        }
    }

    func testContractPoint4_onlyAMarkerRemotelyOrAnEarlierSyncLetsAnEmptySnapshotThrough() async throws {
        try await forEachBackend { rig in
            try rig.putRemote(markerPath, "marker")
            let onlyMarker = try await rig.engine().sync(snapshot([]))
            XCTAssertNotEqual(onlyMarker, .unavailable(.restorePending))
            _ = try await rig.engine().sync(snapshot([("a.txt", "alpha")]))
            let report = syncedReport(try await rig.engine().sync(snapshot([])))
            XCTAssertEqual(report.deleted, ["a.txt"], "an earlier sync from here lifts the guard")
        }
    }

    func testContractPoint4_guardEmptyOverExistingFalseDisablesTheGuard() async throws {
        try await forEachBackend { rig in
            try rig.putRemote("a.txt", "alpha")
            let engine = try rig.engine(policy: SyncPolicy(guardEmptyOverExisting: false))
            let report = syncedReport(try await engine.sync(snapshot([])))
            XCTAssertEqual(report.deleted, ["a.txt"])
        }
    }

    // MARK: 5. Diff

    func testContractPoint5_sizeComparedUploadsWhenUnknownOrLocalOrRemoteSizeDiffers() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            let first = syncedReport(try await engine.sync(snapshot([("a", "1"), ("b", "22"), ("c", "333")], hashed: false)))
            XCTAssertEqual(first.uploaded, ["a", "b", "c", markerPath], "unknown entries upload")
            let unchanged = syncedReport(try await engine.sync(snapshot([("a", "9"), ("b", "22"), ("c", "333")], hashed: false)))
            XCTAssertEqual(unchanged.uploaded, [], "same sizes: nothing uploads, even with other bytes")
            try rig.putRemote("c", "remote change")
            let changed = syncedReport(try await engine.sync(snapshot([("a", "1"), ("b", "2222"), ("c", "333")], hashed: false)))
            XCTAssertEqual(changed.uploaded, ["b", "c", markerPath], "local size of b and remote size of c differ")
            let contents = try await rig.remoteContents()
            XCTAssertEqual(contents["c"], Data("333".utf8))
        }
    }

    func testContractPoint5_hashComparedUploadsWhenStoredHashDiffers() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("a", "one"), ("b", "two")]))
            let sameSize = syncedReport(try await engine.sync(snapshot([("a", "one"), ("b", "TWO")])))
            XCTAssertEqual(sameSize.uploaded, ["b", markerPath])
            let unchanged = syncedReport(try await engine.sync(snapshot([("a", "one"), ("b", "TWO")])))
            XCTAssertEqual(unchanged.uploaded, [])
        }
    }

    func testContractPoint5_markerUploadsWhenAnythingUploadedOrItIsMissingRemotely() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("a", "one")], marker: "m1"))
            let newMarkerOnly = syncedReport(try await engine.sync(snapshot([("a", "one")], marker: "m2")))
            XCTAssertEqual(newMarkerOnly.uploaded, [], "a marker change alone does not upload")
            try FileManager.default.removeItem(at: rig.remoteRoot.appendingPathComponent(markerPath))
            let missing = syncedReport(try await engine.sync(snapshot([("a", "one")], marker: "m3")))
            XCTAssertEqual(missing.uploaded, [markerPath])
            let contents = try await rig.remoteContents()
            XCTAssertEqual(contents[markerPath], Data("m3".utf8))
        }
    }

    // MARK: 6. Deletes

    func testContractPoint6_entriesAbsentFromTheSnapshotAreDeletedExceptMarkerAndDeclaredAbsent() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("a", "1"), ("b", "2"), ("c", "3")]))
            let report = syncedReport(try await engine.sync(snapshot([("a", "1")], extra: [.absent("c")])))
            XCTAssertEqual(report.deleted, ["b"])
            let contents = try await rig.remoteContents()
            XCTAssertEqual(Set(contents.keys), ["a", "c", markerPath])
        }
    }

    // MARK: 7. Order

    func testContractPoint7_sizeComparedThenHashComparedInSnapshotOrderThenMarker() async throws {
        try await forEachBackend { rig in
            let sized = [SyncEntry.bytes("s2", Data("x".utf8), hashed: false), .bytes("s1", Data("y".utf8), hashed: false)]
            let snap = snapshot([("h2", "a"), ("h1", "b")], extra: sized)
            let report = syncedReport(try await rig.engine().sync(snap))
            XCTAssertEqual(report.uploaded, ["s2", "s1", "h2", "h1", markerPath])
            if let faults = rig.faults {
                XCTAssertEqual(faults.completed(.writeBytes), ["s2", "s1", "h2", "h1", markerPath])
            }
        }
    }

    func testContractPoint7_stateIsSavedAfterEveryPut() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let seen = Recorder<[String]>()
            let statePath = rig.statePath
            faults.onOperation { operation, _ in
                guard operation == .writeBytes else { return }
                let entries = try await StateStore(path: statePath).loadSync().entries.keys.map(\.string).sorted()
                seen.append(entries)
            }
            _ = try await rig.engine().sync(snapshot([("a", "1"), ("b", "2")]))
            XCTAssertEqual(seen.all, [[], ["a"], ["a", "b"]])
        }
    }

    // MARK: 8. Deletes after uploads

    func testContractPoint8_deletesRunAfterUploads() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("old", "1")]))
            _ = try await engine.sync(snapshot([("new", "2")]))
            let writesAndDeletes = faults.journal().filter { $0.hasPrefix("writeBytes") || $0.hasPrefix("delete") }
            XCTAssertEqual(writesAndDeletes.suffix(3), ["writeBytes new", "writeBytes \(markerPath)", "delete old"])
        }
    }

    func testContractPoint8_aFailedDeleteIsLoggedNeverFailsTheSyncAndIsRetriedNextRun() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let logs = Recorder<String>()
            let engine = try rig.engine(log: { logs.append($0) })
            _ = try await engine.sync(snapshot([("a", "1"), ("b", "2")]))
            faults.inject(CloudError.transport, on: .delete, path: "b")
            let failed = syncedReport(try await engine.sync(snapshot([("a", "1")])))
            XCTAssertEqual(failed.failedDeletes, ["b"])
            XCTAssertEqual(logs.all.count { $0.contains("delete failed") }, 1)
            let retried = syncedReport(try await engine.sync(snapshot([("a", "1")])))
            XCTAssertEqual(retried.deleted, ["b"])
            let contents = try await rig.remoteContents()
            XCTAssertNil(contents["b"])
        }
    }

    // MARK: 9. Drive identity adoption

    func testContractPoint9_withoutAnIdentityKeyTheMarkersFileIdBecomesTheIdentity() async throws {
        try await forEachBackend([.faultInjecting], assignsRemoteIds: true) { rig in
            let faults = try XCTUnwrap(rig.faults)
            faults.overrideIdentity(nil)
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("a", "1")]))
            let markerId = try await faults.list().first { $0.path == markerPath }?.remoteId
            let adopted = try await rig.savedState().identity
            XCTAssertEqual(adopted, try XCTUnwrap(markerId))
            let again = syncedReport(try await engine.sync(snapshot([("a", "1"), ("b", "2")])))
            XCTAssertEqual(again.uploaded, ["b", markerPath], "the adopted identity holds: no reset")
            try await faults.delete(markerPath)
            _ = try await faults.writeBytes(markerPath, Data("another device's backup".utf8))
            let reset = syncedReport(try await engine.sync(snapshot([("a", "1"), ("b", "2")])))
            XCTAssertEqual(reset.uploaded, ["a", "b", markerPath], "a new marker id is another drive: full re-upload")
        }
    }

    func testContractPoint9_anIdentityKeyWinsOverTheMarkersFileId() async throws {
        try await forEachBackend(assignsRemoteIds: true) { rig in
            _ = try await rig.engine().sync(snapshot([("a", "1")]))
            let identity = try await rig.savedState().identity
            let folderKey = try await rig.folder.identityKey()
            XCTAssertEqual(identity, folderKey)
        }
    }

    // MARK: 10. Progress

    func testContractPoint10_progressFiresBeforeTheFirstStepAndAfterEveryPutAndDelete() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("a", "1"), ("b", "2")]))
            let progress = Recorder<[Int]>()
            _ = try await engine.sync(snapshot([("a", "changed"), ("c", "3")])) { progress.append([$0, $1]) }
            XCTAssertEqual(progress.all, [[0, 4], [1, 4], [2, 4], [3, 4], [4, 4]])
            let idle = Recorder<[Int]>()
            _ = try await engine.sync(snapshot([("a", "changed"), ("c", "3")])) { idle.append([$0, $1]) }
            XCTAssertEqual(idle.all, [[0, 0]])
        }
    }

    // MARK: 11. Shrink guard

    func testContractPoint11_deletingMoreThanHalfOfAtLeastFourIsShrinkSuspectedBeforeAnyWrite() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            let eight = (1...8).map { ("f\($0)", "\($0)") }
            _ = try await engine.sync(snapshot(eight))
            let before = try await rig.remoteContents()
            let outcome = try await engine.sync(snapshot(Array(eight.prefix(3)) + [("new", "n")]))
            XCTAssertEqual(outcome, .unavailable(.shrinkSuspected(deletes: 5, known: 8)))
            let after = try await rig.remoteContents()
            XCTAssertEqual(after, before, "nothing written, not even the new file")
            let half = syncedReport(try await engine.sync(snapshot(Array(eight.prefix(4)))))
            XCTAssertEqual(half.deleted.count, 4, "exactly half does not exceed the fraction")
        }
    }

    func testContractPoint11_belowTheFloorAllowShrinkAndNilGuardLetTheRunThrough() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("a", "1"), ("b", "2"), ("c", "3")]))
            let floor = syncedReport(try await engine.sync(snapshot([("keep", "k")])))
            XCTAssertEqual(floor.deleted, ["a", "b", "c"], "three known entries are below the floor of four")
            let six = (1...6).map { ("f\($0)", "\($0)") }
            _ = try await engine.sync(snapshot(six))
            let allowed = syncedReport(try await engine.sync(snapshot([("f1", "1")], allowShrink: true)))
            XCTAssertEqual(allowed.deleted, ["f2", "f3", "f4", "f5", "f6"], "five of six lifted by allowShrink")
            let guarded = try await engine.sync(snapshot([("g", "1")]))
            XCTAssertEqual(guarded, .synced(SyncReport(uploaded: ["g", markerPath], deleted: ["f1"])),
                           "allowShrink lasted one run only; deleting 1 of 1 known is below the floor")
            _ = try await engine.sync(snapshot(six))
            let unguarded = try rig.engine(policy: SyncPolicy(shrinkGuard: nil))
            let report = syncedReport(try await unguarded.sync(snapshot([("z", "z")])))
            XCTAssertEqual(report.deleted.count, 6)
        }
    }

    func testContractPoint11_theEmptyGuardIsCheckedFirst() async throws {
        try await forEachBackend { rig in
            for index in 1...8 { try rig.putRemote("f\(index)", "\(index)") }
            let outcome = try await rig.engine().sync(snapshot([]))
            XCTAssertEqual(outcome, .unavailable(.restorePending))
        }
    }

    // MARK: Serialised runs

    func testSyncCallsAreSerialisedByTheEngine() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            faults.onOperation { _, _ in await Task.yield() }
            let engine = try rig.engine()
            async let first = engine.sync(snapshot([("a", "1"), ("b", "2")]))
            async let second = engine.sync(snapshot([("a", "1"), ("b", "2"), ("c", "3")]))
            _ = try await (first, second)
            let journal = faults.journal()
            let lists = journal.indices.filter { journal[$0] == "list " }
            XCTAssertEqual(lists.count, 2, "two runs, each starting with its own listing: \(journal)")
            let firstRun = journal[lists[0]..<(lists.last ?? journal.endIndex)]
            XCTAssertTrue(firstRun.contains("writeBytes \(markerPath)"), "the first run finished before the second listed")
        }
    }
}
