import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest
@testable import CloudAnchor

/// Kills a backup and a restore at seeded random points and shows the next run finishes with
/// nothing uploaded or downloaded twice and nothing lost.
///
/// A crash is modelled by `CrashPoints`: the fault-injecting backend passes a point before and
/// after every write, download and delete, and the state store one inside every transaction
/// (an aborted transaction is what SQLite's WAL recovery leaves of an interrupted one). After the
/// crash the engine and its state store are dropped and a fresh engine reopens the state file.
final class CrashRecoveryTests: XCTestCase {
    static let seeds: ClosedRange<UInt64> = 1...60

    func testBackupKilledAtSeededRandomPointsFinishesWithNothingUploadedTwiceAndNothingLost() async throws {
        let crashedAt = try await crashAtEverySeed(BackupScenario.self) { scenario, dry, result, context in
            XCTAssertEqual(result.finalContents, scenario.expectedContents, "\(context): something was lost")
            XCTAssertEqual(result.writes.sorted(), dry.writes.sorted(), "\(context): uploads differ")
            XCTAssertEqual(result.deletes.sorted(), dry.deletes.sorted(), "\(context): deletes differ")
            XCTAssertEqual(result.settledReport, SyncReport(), "\(context): a further run still had work")
        }
        XCTAssertTrue(crashedAt.isSuperset(of: ["before writeBytes", "after writeBytes", "after delete", "commit completePut"]),
                      "the seeds cover the interesting points: \(crashedAt.sorted())")
    }

    func testRestoreKilledAtSeededRandomPointsFinishesWithNothingDownloadedTwiceAndNothingLost() async throws {
        let crashedAt = try await crashAtEverySeed(RestoreScenario.self) { scenario, dry, result, context in
            XCTAssertEqual(result.restored, scenario.expectedContents, "\(context): something was lost")
            XCTAssertEqual(result.downloads.sorted(), dry.downloads.sorted(), "\(context): downloads differ")
            XCTAssertTrue(result.completed, "\(context): the restore did not complete")
        }
        XCTAssertTrue(crashedAt.isSuperset(of: ["after downloadFile", "commit updateFiles"]),
                      "the seeds cover the interesting points: \(crashedAt.sorted())")
    }

    /// For every seed: a dry run counts the crash points of the run under test, a second run
    /// crashes at one of them picked by the seed and recovers, and `check` compares the two.
    /// Returns the kinds of points that crashed ("after writeBytes", "commit completePut", ...).
    private func crashAtEverySeed<Scenario: CrashScenario>(
        _ scenario: Scenario.Type,
        check: (Scenario, Scenario.Result, Scenario.Result, String) -> Void
    ) async throws -> Set<String> {
        var crashedAt: Set<String> = []
        for seed in Self.seeds {
            let scenario = Scenario(seed: seed)
            let dry = try await scenario.run(crashAt: nil)
            var pick = SeededGenerator(seed: seed ^ 0xC0FFEE)
            let point = Int.random(in: (dry.pointsBefore + 1)...dry.pointsAfter, using: &pick)
            let result = try await scenario.run(crashAt: point)
            let context = "seed \(seed), crash point \(point) of \(dry.pointsBefore + 1)...\(dry.pointsAfter)"
            guard let crash = result.crash else {
                XCTFail("\(context): the run did not crash")
                continue
            }
            crashedAt.insert(crash.label.split(separator: " ").prefix(2).joined(separator: " "))
            check(scenario, dry, result, "\(context) (\(crash.label))")
        }
        return crashedAt
    }
}

/// A seeded scenario whose run under test can crash at a chosen point and then recovers.
private protocol CrashScenario {
    associatedtype Result: CrashedRun
    init(seed: UInt64)
    /// Runs the scenario with a crash at `crashAt` (none for a dry run) and the recovery after it.
    func run(crashAt: Int?) async throws -> Result
}

/// What every crashed-and-recovered run reports.
private protocol CrashedRun {
    /// The crash, when one happened.
    var crash: CrashPoints.Crash? { get }
    /// The points passed before the run under test.
    var pointsBefore: Int { get }
    /// The points passed by the end of the run under test and its recovery.
    var pointsAfter: Int { get }
}

/// A seeded backup: a first sync that succeeds, then a changed snapshot whose sync may crash.
private struct BackupScenario: CrashScenario {
    struct Result: CrashedRun {
        var crash: CrashPoints.Crash?
        var pointsBefore = 0
        var pointsAfter = 0
        var writes: [String] = []
        var deletes: [String] = []
        var finalContents: [String: Data] = [:]
        var settledReport = SyncReport()
    }

    let first: SyncSnapshot
    let second: SyncSnapshot

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var files: [(String, String, Bool)] = (0..<Int.random(in: 5...9, using: &random)).map { index in
            ("dir\(index % 3)/file\(index)", String(repeating: "v1-\(index)-", count: Int.random(in: 1...4, using: &random)),
             Bool.random(using: &random))
        }
        first = Self.snapshot(files, marker: "marker 1")
        files = files.compactMap { file in
            switch Int.random(in: 0..<4, using: &random) {
            case 0: nil
            case 1: (file.0, file.2 ? file.1.uppercased() : file.1 + "+", file.2)
            default: file
            }
        }
        for index in 0..<Int.random(in: 1...3, using: &random) {
            files.append(("new/file\(index)", "new content \(index)", Bool.random(using: &random)))
        }
        second = Self.snapshot(files, marker: "marker 2", allowShrink: true)
    }

    var expectedContents: [String: Data] {
        var contents: [String: Data] = [markerPath: second.marker]
        for entry in second.entries {
            if case .bytes(let data) = entry.source { contents[entry.path] = data }
        }
        return contents
    }

    /// Runs the first sync, then the second with a crash at `crashAt`, then recovers.
    func run(crashAt: Int?) async throws -> Result {
        let points = CrashPoints(crashAt: crashAt)
        let rig = try Rig.make(.faultInjecting, crashPoints: points)
        defer { rig.tearDown() }
        let faults = try XCTUnwrap(rig.faults)
        let hook: @Sendable (String) throws -> Void = { try points.pass("commit \($0)") }
        _ = try await rig.engine(commitHook: hook).sync(first)
        var result = Result(pointsBefore: points.passed)
        let journalStart = faults.journal().count
        do {
            _ = try await rig.engine(commitHook: hook).sync(second)
        } catch let crash as CrashPoints.Crash {
            result.crash = crash
            _ = try await rig.engine().sync(second)
        }
        result.pointsAfter = points.passed
        let journal = faults.journal().dropFirst(journalStart)
        result.writes = journal.filter { $0.hasPrefix("writeBytes ") }.map { String($0.dropFirst(11)) }
        result.deletes = journal.filter { $0.hasPrefix("delete ") }.map { String($0.dropFirst(7)) }
        result.finalContents = try await rig.remoteContents()
        result.settledReport = syncedReport(try await rig.engine().sync(second))
        return result
    }

    private static func snapshot(_ files: [(String, String, Bool)], marker: String, allowShrink: Bool = false) -> SyncSnapshot {
        SyncSnapshot(entries: files.map { SyncEntry.bytes($0.0, Data($0.1.utf8), hashed: $0.2) },
                     marker: Data(marker.utf8), allowShrink: allowShrink)
    }
}

/// A seeded restore: a backup of random files in random groups, restored with a crash, resumed.
private struct RestoreScenario: CrashScenario {
    struct Result: CrashedRun {
        var crash: CrashPoints.Crash?
        var pointsBefore = 0
        var pointsAfter = 0
        var downloads: [String] = []
        var restored: [String: String] = [:]
        var completed = false
    }

    let files: [(String, String)]
    let optional: Set<String>
    let groups: [String: String]

    init(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 4...8, using: &random)
        files = (0..<count).map { ("f\($0)", String(repeating: "content \($0) ", count: Int.random(in: 1...5, using: &random))) }
        optional = Set(files.map(\.0).filter { _ in Bool.random(using: &random) })
        var groups: [String: String] = [:]
        for (path, _) in files where Bool.random(using: &random) {
            groups[path] = "g\(Int.random(in: 0..<3, using: &random))"
        }
        self.groups = groups
    }

    var expectedContents: [String: String] {
        Dictionary(uniqueKeysWithValues: files)
    }

    /// Backs the files up, restores them with a crash at `crashAt`, then resumes.
    func run(crashAt: Int?) async throws -> Result {
        let points = CrashPoints(crashAt: crashAt)
        let rig = try Rig.make(.faultInjecting, crashPoints: points)
        defer { rig.tearDown() }
        let faults = try XCTUnwrap(rig.faults)
        let found = try await rig.backUp(files)
        let plan = rig.plan(found, optional: optional, groups: groups)
        var result = Result(pointsBefore: points.passed)
        let journalStart = faults.journal().count
        var outcome: RestoreOutcome
        do {
            outcome = try await rig.restorer(commitHook: { try points.pass("commit \($0)") }).start(plan)
        } catch let crash as CrashPoints.Crash {
            result.crash = crash
            let restorer = try rig.restorer()
            outcome = try await restorer.resume()
            if outcome == .failed(.noPlan) { outcome = try await restorer.start(plan) }
        }
        result.pointsAfter = points.passed
        if case .completed = outcome { result.completed = true }
        result.downloads = faults.journal().dropFirst(journalStart)
            .filter { $0.hasPrefix("downloadFile ") }.map { String($0.dropFirst(13)) }
        for (path, _) in files { result.restored[path] = rig.restored(path) }
        return result
    }
}
