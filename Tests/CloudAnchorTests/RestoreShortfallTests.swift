import Foundation
import SyncKernelSimulator
import XCTest
@testable import CloudAnchor

/// A restore from a remote that lost or damaged many files names every one of them (past twenty,
/// the count and the first twenty) and never reports success: on both directory backends.
final class RestoreShortfallTests: XCTestCase {
    /// Writes `count` files spread over three folders into the rig's source; their paths in
    /// path-byte order.
    private func writeFiles(_ rig: DirectoryRig, count: Int) throws -> [String] {
        let paths = (0..<count).map { index in ["", "deep/", "deep/er/"][index % 3] + String(format: "f%02d.txt", index) }
        for path in paths { try rig.write(path, "content of \(path)") }
        return paths.sorted { $0.bytesPrecede($1) }
    }

    /// Removes the remote's whole `files/` folder behind the engine's back.
    private func dropFilesFolder(_ rig: DirectoryRig) async throws {
        if let remote = rig.remoteFolder {
            try FileManager.default.removeItem(at: remote.appendingPathComponent("files"))
        } else {
            try await rig.deleteRemote("files")
        }
    }

    func testARemoteMissingItsWholeFilesFolderNamesAllSevenFiles() async throws {
        try await forEachDirectoryBackend { rig in
            let paths = try writeFiles(rig, count: 7)
            _ = try await rig.backupCompleted()
            try await dropFilesFolder(rig)
            let outcome = try await rig.restore()
            XCTAssertEqual(outcome, .incomplete(paths.map { RestoreProblem(path: $0, kind: .missing) }), "\(rig)")
            let shortfall = try XCTUnwrap(outcome.shortfall)
            XCTAssertEqual(shortfall.listed.map(\.path), paths, "\(rig): every file named")
            XCTAssertEqual(shortfall.summary, "7 entries not in place (7 missing from the backup)", "\(rig)")
            XCTAssertTrue(shortfall.isBackupsFault)
        }
    }

    func testTwentyFiveMissingOrDamagedFilesGiveTheCountAndTheFirstTwenty() async throws {
        try await forEachDirectoryBackend { rig in
            let paths = try writeFiles(rig, count: 30)
            _ = try await rig.backupCompleted()
            var random = SeededGenerator(seed: 25)
            var chosen = paths
            chosen.shuffle(using: &random)
            let broken = Array(chosen.prefix(25))
            var expected: [RestoreProblem] = []
            for (index, path) in broken.enumerated() {
                if index % 2 == 0 {
                    try await rig.deleteRemote("files/" + path)
                    expected.append(RestoreProblem(path: path, kind: .missing))
                } else {
                    try await rig.flipRemote("files/" + path, at: 3)
                    expected.append(RestoreProblem(path: path, kind: .damaged))
                }
            }
            expected.sort { $0.path.bytesPrecede($1.path) }
            let outcome = try await rig.restore()
            XCTAssertEqual(outcome, .incomplete(expected), "\(rig): all 25, in path order")
            let shortfall = try XCTUnwrap(outcome.shortfall)
            XCTAssertEqual(Array(shortfall.listed), Array(expected.prefix(20)), "\(rig)")
            XCTAssertEqual(shortfall.summary,
                           "25 entries not in place (13 missing from the backup, 12 damaged in it); the first 20 by path are named",
                           "\(rig)")
            for path in Set(paths).subtracting(broken) {
                XCTAssertEqual(try String(contentsOf: rig.target.appendingPathComponent(path), encoding: .utf8),
                               "content of \(path)", "\(rig): the intact files are placed")
            }
        }
    }

    func testMixedMissingAndDamagedFilesAreEachNamedWithTheirKind() async throws {
        try await forEachDirectoryBackend { rig in
            let paths = try writeFiles(rig, count: 6)
            _ = try await rig.backupCompleted()
            try await rig.deleteRemote("files/" + paths[0])
            try await rig.deleteRemote("files/" + paths[4])
            try await rig.replaceRemote("files/" + paths[2], with: Data("short".utf8))
            let outcome = try await rig.restore()
            XCTAssertEqual(outcome, .incomplete([RestoreProblem(path: paths[0], kind: .missing),
                                                 RestoreProblem(path: paths[2], kind: .damaged),
                                                 RestoreProblem(path: paths[4], kind: .missing)]), "\(rig)")
            XCTAssertEqual(outcome.shortfall?.summary, "3 entries not in place (2 missing from the backup, 1 damaged in it)", "\(rig)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: rig.target.appendingPathComponent(paths[2]).path),
                           "\(rig): a damaged file is never placed")
        }
    }

    func testTheSummaryCountsOtherProblemsApartAndHoldsNoPath() {
        let shortfall = RestoreShortfall([RestoreProblem(path: "secret/a", kind: .failed(.transport)),
                                          RestoreProblem(path: "secret/b", kind: .inTheWay)])
        XCTAssertEqual(shortfall.summary, "2 entries not in place (2 not restored for another reason)")
        XCTAssertFalse(shortfall.isBackupsFault, "a passing cause: run again with --resume")
        XCTAssertNil(DirectoryRestoreOutcome.nothingToRestore.shortfall)
    }
}
