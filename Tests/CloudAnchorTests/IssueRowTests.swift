import Foundation
import XCTest
@testable import CloudAnchor

/// One test per row of issue 14's table ("The cloud anchor never reports success over missing
/// data"), through `DirectoryBackup` and `DirectoryRestore` (the engines of `synckernel backup`
/// and `restore`) on a `folder:` remote and on a WebDAV server (rclone, started by each test and
/// stopped when it ends). Each doc comment says what happened before the fix.
final class IssueRowTests: XCTestCase {
    // MARK: Row 7: a damaged manifest

    /// Before: a truncated, garbage or emptied manifest was not a manifest to the restore, so it
    /// placed every listed file without any content check and exited 0 ("completed"). Now the
    /// manifest checks its own hash, the restore stops with `.damagedManifest` before writing
    /// anything, and the next backup notices the remote manifest is not the one it wrote and
    /// writes it again.
    func testRow07_aTruncatedGarbageOrEmptiedManifestIsDetectedNothingIsWrittenAndTheNextBackupRepairsIt() async throws {
        try await forEachDirectoryBackend { rig in
            try rig.write("a.txt", "alpha")
            try rig.write("photos/b.jpg", Data((0..<5_000).map { UInt8($0 % 256) }))
            _ = try await rig.backupCompleted()
            let manifest = try await rig.remoteBytes(markerPath)
            let damages: [(String, Data)] = [
                ("truncated", manifest.prefix(manifest.count / 2)),
                ("truncated by one byte", manifest.dropLast()),
                ("garbage", Data("{\"not\": \"a manifest\"}".utf8)),
                ("emptied", Data()),
                ("one entry dropped", Self.dropLine(2, from: manifest)),
            ]
            for (damage, bytes) in damages {
                try await rig.replaceRemote(markerPath, with: bytes)
                let target = rig.directory.appendingPathComponent("target-\(damage)")
                let outcome = try await rig.restore(into: target)
                XCTAssertEqual(outcome, .damagedManifest, "\(rig), \(damage)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "\(rig), \(damage): something was written")
                _ = try await rig.backupCompleted()
                let repaired = try await rig.remoteBytes(markerPath)
                XCTAssertEqual(repaired, manifest, "\(rig), \(damage): the next backup rewrote the manifest")
            }
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the repaired backup restores") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    // MARK: Row 8: a remote file deleted

    /// Before: the restore planned from the remote listing, so a file the manifest names but the
    /// remote lacks was never noticed: exit 0, "completed", the file missing. Now the restore
    /// plans from the manifest, names the file as missing, places everything else, and the next
    /// backup uploads the file again, after which `resume` completes.
    func testRow08_aRemoteFileDeletedIsNamedAsMissingAndTheNextBackupUploadsItAgain() async throws {
        try await forEachDirectoryBackend { rig in
            try rig.write("a.txt", "alpha")
            try rig.write("deep/b.txt", "beta")
            try rig.write("c.txt", "gamma")
            _ = try await rig.backupCompleted()
            try await rig.deleteRemote("files/deep/b.txt")
            let outcome = try await rig.restore()
            XCTAssertEqual(outcome, .incomplete([RestoreProblem(path: "deep/b.txt", kind: .missing)]), "\(rig)")
            XCTAssertEqual(try String(contentsOf: rig.target.appendingPathComponent("a.txt"), encoding: .utf8), "alpha")
            let summary = try await rig.backupCompleted()
            XCTAssertEqual(summary.uploaded, ["deep/b.txt"], "\(rig): the next backup uploads the missing file again")
            guard case .completed = try await rig.resume() else { return XCTFail("\(rig): the resume completes") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    // MARK: Row 9: a remote file flipped or truncated

    /// Before: the restore failed (exit 1) on the damaged file, and the next backup trusted its
    /// own record and uploaded nothing, so the backup stayed unrestorable. Now the restore names
    /// each damaged file (never placing it), the next backup sees the remote copy's size or tag
    /// is not the one it recorded and uploads it again, and `resume` completes.
    func testRow09_aRemoteFileFlippedOrTruncatedIsNamedAsDamagedAndTheNextBackupUploadsItAgain() async throws {
        try await forEachDirectoryBackend { rig in
            try rig.write("flipped.bin", Data((0..<4_096).map { UInt8($0 % 251) }))
            try rig.write("truncated.bin", Data((0..<4_096).map { UInt8($0 % 253) }))
            try rig.write("intact.txt", "intact")
            _ = try await rig.backupCompleted()
            try await rig.flipRemote("files/flipped.bin", at: 2_000)
            let truncated = try await rig.remoteBytes("files/truncated.bin").prefix(1_000)
            try await rig.replaceRemote("files/truncated.bin", with: truncated)
            let outcome = try await rig.restore()
            XCTAssertEqual(outcome, .incomplete([RestoreProblem(path: "flipped.bin", kind: .damaged),
                                                 RestoreProblem(path: "truncated.bin", kind: .damaged)]), "\(rig)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: rig.target.appendingPathComponent("flipped.bin").path),
                           "\(rig): a damaged file was placed")
            let summary = try await rig.backupCompleted()
            XCTAssertEqual(summary.uploaded, ["flipped.bin", "truncated.bin"], "\(rig): the next backup uploads them again")
            guard case .completed = try await rig.resume() else { return XCTFail("\(rig): the resume completes") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    /// The manifest without its line number `index` (0 is the header), hash line kept.
    private static func dropLine(_ index: Int, from manifest: Data) -> Data {
        var lines = manifest.split(separator: 0x0A, omittingEmptySubsequences: false)
        lines.remove(at: index)
        return Data(lines.joined(separator: [0x0A]))
    }
}
