import Foundation
import XCTest
@testable import CloudAnchor

/// One or more tests per restore rule of the contract.
final class RestoreRuleTests: XCTestCase {
    let files = [("a", "alpha"), ("b", "beta"), ("c", "gamma")]

    // MARK: 1. start

    func testRestoreRule1_startRecordsThePlanAndAsksPrefetchForEveryPendingPathFirst() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files)
            let outcome = try await rig.restorer().start(rig.plan(found))
            guard case .completed = outcome else { return XCTFail("expected .completed, got \(outcome)") }
            let record = try await rig.savedRecord()
            XCTAssertEqual(record?.source, found.source)
            XCTAssertEqual(record?.files.map(\.file.remotePath), ["a", "b", "c"])
            if let faults = rig.faults {
                let restoreOps = faults.journal().drop { !$0.hasPrefix("prefetch") }
                XCTAssertEqual(restoreOps.first, "prefetch a\nb\nc")
                XCTAssertEqual(Array(restoreOps.dropFirst()), ["downloadFile a", "downloadFile b", "downloadFile c"])
            }
        }
    }

    // MARK: 2. Placement

    func testRestoreRule2_filesLandAtTheirLocalPathAndAreOfferedOneGroupAtATime() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files + [("d", "delta")])
            let placement = RecordingPlacement()
            let plan = rig.plan(found, groups: ["a": "g1", "c": "g1", "d": "g2"])
            let outcome = try await rig.restorer(placement: placement).start(plan)
            guard case .completed = outcome else { return XCTFail("expected .completed, got \(outcome)") }
            XCTAssertEqual(placement.offered.all, [["a", "c"], ["b"], ["d"]])
            XCTAssertEqual(files.map { rig.restored($0.0) }, files.map(\.1), "the default placement keeps them")
        }
    }

    func testRestoreRule2_aRejectionCountsOneAttemptOnEachFileAndStagesThemAgainNextRun() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files)
            let plan = rig.plan(found, optional: ["a", "b"], groups: ["a": "g", "b": "g"])
            let restorer = try rig.restorer(placement: RejectingPlacement(["g": 1]))
            let first = try await restorer.start(plan)
            XCTAssertEqual(first, .partial(pending: 2))
            let record = try await rig.savedRecord()
            XCTAssertEqual(record?.files.map(\.attempts), [1, 1, 0])
            XCTAssertEqual(record?.files.map(\.phase), [.pending, .pending, .done])
            XCTAssertNil(rig.restored("a"), "rejected files are removed to be staged again")
            let second = try await restorer.resume()
            guard case .completed = second else { return XCTFail("expected .completed, got \(second)") }
            XCTAssertEqual(rig.restored("a"), "alpha")
            if let faults = rig.faults {
                XCTAssertEqual(faults.completed(.downloadFile), ["c", "a", "b", "a", "b"])
            }
        }
    }

    // MARK: 3. Required groups

    func testRestoreRule3_requiredGroupsGoFirstInPlanOrder() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files + [("d", "delta")])
            let placement = RecordingPlacement()
            let plan = rig.plan(found, optional: ["a", "c"], order: ["a", "b", "c", "d"])
            _ = try await rig.restorer(placement: placement).start(plan)
            XCTAssertEqual(placement.offered.all, [["b"], ["d"], ["a"], ["c"]])
        }
    }

    func testRestoreRule3_theFirstRequiredDownloadFailureEndsTheRunAndOptionalFilesAreUntouched() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let found = try await rig.backUp(files + [("d", "delta")])
            faults.inject(CloudError.offline, on: .downloadFile, path: "b")
            let outcome = try await rig.restorer().start(rig.plan(found, optional: ["c", "d"]))
            XCTAssertEqual(outcome, .failed(.cloud(.offline)))
            XCTAssertEqual(faults.completed(.downloadFile), ["a"])
            XCTAssertNil(rig.restored("c"))
            let record = try await rig.savedRecord()
            XCTAssertEqual(record?.files.map(\.attempts), [0, 1, 0, 0])
        }
    }

    func testRestoreRule3_aRejectedRequiredGroupEndsTheRunAsPlacementRejected() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files)
            let plan = rig.plan(found, optional: ["c"], groups: ["a": "core", "b": "core"])
            let outcome = try await rig.restorer(placement: RejectingPlacement(["core": 1])).start(plan)
            XCTAssertEqual(outcome, .failed(.placementRejected(group: "core")))
            XCTAssertNil(rig.restored("c"), "optional files are untouched")
        }
    }

    // MARK: 4. Optional groups

    func testRestoreRule4_whatLandedOfAnOptionalGroupIsPlacedEvenWhenASiblingFailed() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let found = try await rig.backUp(files)
            faults.inject(CloudError.transport, on: .downloadFile, path: "b")
            let placement = RecordingPlacement()
            let plan = rig.plan(found, optional: ["a", "b", "c"], groups: ["a": "g", "b": "g", "c": "g"])
            let outcome = try await rig.restorer(placement: placement).start(plan)
            XCTAssertEqual(outcome, .partial(pending: 1))
            XCTAssertEqual(placement.offered.all, [["a", "c"]])
        }
    }

    func testRestoreRule4_aFileWithThreeFailuresIsSkippedUntilResumeResetsAttempts() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let found = try await rig.backUp(files)
            faults.inject(CloudError.transport, on: .downloadFile, path: "b", times: 3)
            let restorer = try rig.restorer()
            var outcomes = [try await restorer.start(rig.plan(found, optional: ["b"]))]
            for _ in 1...3 { outcomes.append(try await restorer.resume()) }
            XCTAssertEqual(outcomes, Array(repeating: .partial(pending: 1), count: 4))
            let tried = faults.journal().count { $0 == "prefetch b" }
            XCTAssertEqual(tried, 2, "after the third failure b is not even prefetched")
            let reset = try await restorer.resume(resetAttempts: true)
            guard case .completed = reset else { return XCTFail("expected .completed, got \(reset)") }
            XCTAssertEqual(rig.restored("b"), "beta")
        }
    }

    // MARK: 5. Record

    func testRestoreRule5_theRecordIsSavedAfterEveryDownloadAndPlacementWithDownloadedSeparateFromDone() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files)
            let statePath = rig.statePath
            let phasesSeen = Recorder<[String]>()
            let placement = RecordingPlacement { _ in
                let record = try? await StateStore(path: statePath).loadRecord()
                phasesSeen.append(record?.files.map(\.phase.rawValue) ?? [])
                return .placed
            }
            let plan = rig.plan(found, groups: ["a": "g", "b": "g"])
            _ = try await rig.restorer(placement: placement).start(plan)
            XCTAssertEqual(phasesSeen.all, [["downloaded", "downloaded", "pending"], ["done", "done", "downloaded"]])
            let final = try await rig.savedRecord()
            XCTAssertEqual(final?.files.map(\.phase), [.done, .done, .done])
            XCTAssertNotNil(final?.completedAt)
        }
    }

    func testRestoreRule5_stoppingIsCancellingTheCaller() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let found = try await rig.backUp(files)
            let restorer = try rig.restorer()
            let plan = rig.plan(found)
            let run = Task { try await restorer.start(plan) }
            faults.onOperation { operation, path in
                if operation == .downloadFile, path == "b" { run.cancel() }
            }
            let stopped = await run.result
            XCTAssertThrowsError(try stopped.get()) { XCTAssertTrue($0 is CancellationError) }
            faults.onOperation { _, _ in }
            let resumed = try await restorer.resume()
            guard case .completed = resumed else { return XCTFail("expected .completed, got \(resumed)") }
            XCTAssertEqual(faults.completed(.downloadFile), ["a", "b", "c"], "nothing downloaded twice")
        }
    }

    // MARK: 6. Progress and outcome

    func testRestoreRule6_progressIsSentOnlyWhenACountChangesAndCompletedIsStamped() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files)
            let stamp = Date(timeIntervalSince1970: 1_800_000_000)
            let restorer = RestoreEngine(storage: rig.storage, state: try StateStore(path: rig.statePath), now: { stamp })
            let progress = Recorder<RestoreProgress>()
            let outcome = try await restorer.start(rig.plan(found, groups: ["a": "g", "b": "g"])) { progress.append($0) }
            XCTAssertEqual(outcome, .completed(at: stamp))
            let reports = progress.all
            XCTAssertEqual(reports.map { [$0.filesDownloaded, $0.filesDone, $0.groupsDone] },
                           [[0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 2, 1], [1, 2, 1], [0, 3, 2]])
            XCTAssertTrue(reports.allSatisfy { $0.filesTotal == 3 && $0.groupsTotal == 2 })
            let again = Recorder<RestoreProgress>()
            let repeated = try await restorer.resume { again.append($0) }
            XCTAssertEqual(repeated, .completed(at: stamp))
            XCTAssertEqual(again.all.count, 1, "a run with nothing to do reports once")
        }
    }

    // MARK: 7. Resume

    func testRestoreRule7_resumeContinuesFromTheRecordAndNeverRefetchesDoneOrStagedFiles() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let found = try await rig.backUp(files)
            faults.inject(CloudError.transport, on: .downloadFile, path: "c")
            let restorer = try rig.restorer()
            let first = try await restorer.start(rig.plan(found, groups: ["b": "g", "c": "g"]))
            XCTAssertEqual(first, .failed(.cloud(.transport)))
            let record = try await rig.savedRecord()
            XCTAssertEqual(record?.files.map(\.phase), [.done, .downloaded, .pending])
            let resumed = try await rig.restorer().resume()
            guard case .completed = resumed else { return XCTFail("expected .completed, got \(resumed)") }
            XCTAssertEqual(faults.completed(.downloadFile), ["a", "b", "c"])
            XCTAssertEqual(faults.journal().last { $0.hasPrefix("prefetch") }, "prefetch c")
        }
    }

    func testRestoreRule7_resumeRevalidatesTheSource() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files)
            let plan = rig.plan(found)
            let restorer = try rig.restorer()
            let none = try await restorer.resume()
            XCTAssertEqual(none, .failed(.noPlan))
            try await rig.engine().setHold(.held(reason: "restoring"))
            rig.availability.set(.noAccount)
            let noAccount = try await restorer.start(plan)
            guard case .completed = noAccount else { return XCTFail("start does not revalidate: \(noAccount)") }
            let notAvailable = try await restorer.resume()
            XCTAssertEqual(notAvailable, .failed(.notAvailable))
            rig.availability.set(.needsConsent)
            let needsConsent = try await restorer.resume()
            XCTAssertEqual(needsConsent, .failed(.needsConsent))
            rig.availability.set(.available)
            try rig.putRemote(markerPath, "marker v2")
            let changed = try await restorer.resume()
            XCTAssertEqual(changed, .failed(.sourceChanged))
            try FileManager.default.removeItem(at: rig.remoteRoot.appendingPathComponent(markerPath))
            let notReady = try await restorer.resume()
            XCTAssertEqual(notReady, .failed(.notReady))
            for (path, _) in files { try FileManager.default.removeItem(at: rig.remoteRoot.appendingPathComponent(path)) }
            let unavailable = try await restorer.resume()
            XCTAssertEqual(unavailable, .failed(.sourceUnavailable))
            try FileManager.default.removeItem(at: rig.remoteRoot)
            let offline = try await restorer.resume()
            XCTAssertEqual(offline, .failed(.cloud(.offline)))
        }
    }

    // MARK: Verification

    /// Before: a restore placed whatever it downloaded (the CLI's placement checked hashes only
    /// when the manifest parsed). Now a file whose plan gives a hash is checked before it leaves
    /// its staging file; a mismatch fails the download with `contentMismatch`, recorded on the
    /// file, and nothing is placed at its path.
    func testRestoreVerification_aFileWhoseContentDoesNotMatchItsHashIsNeverPlacedAndIsRecordedAsDamaged() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp(files)
            var plan = rig.plan(found, optional: ["a", "b", "c"])
            plan.files = plan.files.map { file in
                var file = file
                let content = files.first { $0.0 == file.remotePath }.map { Data($0.1.utf8) } ?? Data()
                file.sha256 = ContentHash.sha256(file.remotePath == "b" ? content + Data("x".utf8) : content)
                return file
            }
            let restorer = try rig.restorer()
            let outcome = try await restorer.start(plan)
            XCTAssertEqual(outcome, .partial(pending: 1))
            XCTAssertNil(rig.restored("b"), "a file that does not match its hash was placed")
            XCTAssertEqual(rig.restored("a"), "alpha")
            let statuses = try await restorer.statuses()
            XCTAssertEqual(statuses.map(\.lastError), [nil, .contentMismatch, nil])
            let staged = try FileManager.default.contentsOfDirectory(atPath: rig.restoredURL("b").deletingLastPathComponent().path)
            XCTAssertFalse(staged.contains { $0.hasPrefix(".cloudanchor-part") }, "the damaged download was left: \(staged)")
        }
    }
}
