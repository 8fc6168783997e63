import Foundation
import XCTest
@testable import CloudAnchor

/// One test per row of issue 14's table ("The cloud anchor never reports success over missing
/// data"), through `DirectoryBackup` and `DirectoryRestore` (the engines of `synckernel backup`
/// and `restore`) on a `folder:` remote and on a WebDAV server (rclone, started by each test and
/// stopped when it ends). Each doc comment says what happened before the fix.
final class IssueRowTests: XCTestCase {
    // MARK: Row 1: a link to a file in the source

    /// Before: the folder backend copied the link itself (`copyItem`), the size never matched the
    /// scan's (which followed it), so every backup uploaded it again, and the restore exited 0
    /// "completed" without the file. Now a link is a manifest entry (never uploaded as a file),
    /// the second backup uploads nothing, and the restore recreates the link with its target.
    func testRow01_aLinkToAFileInTheSourceIsKeptAsALinkNeverReuploadedAndRestoredAsALink() async throws {
        try await forEachDirectoryBackend { rig in
            try rig.write("real.txt", "the content")
            try FileManager.default.createSymbolicLink(atPath: rig.source.path + "/alias.txt", withDestinationPath: "real.txt")
            let first = try await rig.backupCompleted()
            XCTAssertEqual(first.links, 1, "\(rig)")
            XCTAssertEqual(first.uploaded, ["real.txt"], "\(rig): only the file is uploaded")
            let second = try await rig.backupCompleted()
            XCTAssertEqual(second.uploaded, [], "\(rig): nothing uploads again")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: rig.target.path + "/alias.txt"), "real.txt")
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    // MARK: Row 2: a link out of the source, and a link loop

    /// Before: links were followed: the content of a folder outside the source was uploaded, and
    /// a loop (`d/up -> ..`) uploaded 41 nested copies before the path got too long, exit 0. Now
    /// the walk never follows a link: each is one manifest entry, nothing outside the source
    /// reaches the remote, and the restore recreates the links verbatim.
    func testRow02_linksOutOfTheSourceAndLinkLoopsAreNeverFollowed() async throws {
        try await forEachDirectoryBackend { rig in
            let outside = rig.directory.appendingPathComponent("outside")
            try rig.write("secret.txt", Data("outside the source".utf8), in: outside)
            try rig.write("d/inside.txt", "inside")
            try FileManager.default.createSymbolicLink(atPath: rig.source.path + "/out", withDestinationPath: outside.path)
            try FileManager.default.createSymbolicLink(atPath: rig.source.path + "/d/up", withDestinationPath: "..")
            try FileManager.default.createSymbolicLink(atPath: rig.source.path + "/d/self", withDestinationPath: "self")
            let summary = try await rig.backupCompleted()
            XCTAssertEqual(summary.links, 3, "\(rig)")
            let remote = try await rig.remotePaths()
            XCTAssertEqual(remote.filter { $0.hasPrefix("files/") }, ["files/d/inside.txt"], "\(rig): only the real file")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: rig.target.path + "/d/up"), "..")
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    // MARK: Row 3: a FIFO, a socket

    /// Before: the backup opened the FIFO to hash it and hung forever (this test never
    /// finished). Now entries that are not folders, files or links are never opened: they are
    /// skipped and named in the summary (the CLI prints a warning for each), and the backup
    /// completes with everything else.
    func testRow03_aFIFOAndASocketAreSkippedWithAWarningNamingThemAndNeverOpened() async throws {
        try await forEachDirectoryBackend { rig in
            try rig.write("a.txt", "alpha")
            try FileManager.default.createDirectory(at: rig.source.appendingPathComponent("pipes"), withIntermediateDirectories: true)
            XCTAssertEqual(mkfifo(rig.source.path + "/pipes/fifo", 0o644), 0)
            let socketPath = rig.source.path + "/pipes/sock"
            let socket = try Self.bindSocket(at: socketPath)
            defer { close(socket) }
            let summary = try await rig.backupCompleted()
            XCTAssertEqual(summary.skipped.map(\.description), ["skipped a FIFO: pipes/fifo", "skipped a socket: pipes/sock"],
                           "\(rig)")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            var expected = try tree(rig.source)
            expected[ExactPath("pipes/fifo")] = nil
            expected[ExactPath("pipes/sock")] = nil
            assertSameTree(try tree(rig.target), expected, "\(rig)")
        }
    }

    // MARK: Row 4: two names that differ only in normalization

    /// Before: the engine keyed its state by Swift `String`, which compares by canonical
    /// equivalence, so the NFC and NFD names were one entry: every backup uploaded both again and
    /// the restore failed on a manifest mismatch. Now paths are compared byte for byte
    /// everywhere: two files, uploaded once, restored as two files.
    func testRow04_NFCAndNFDNamesAreTwoFilesUploadedOnceAndRestoredByteForByte() async throws {
        try await forEachDirectoryBackend { rig in
            try rig.write("caf\u{E9}.txt", "composed")
            try rig.write("cafe\u{301}.txt", "decomposed")
            try rig.write("\u{212B}ngstr\u{F6}m/x", "angstrom sign")
            try rig.write("\u{C5}ngstr\u{F6}m/x", "A with ring")
            let first = try await rig.backupCompleted()
            XCTAssertEqual(first.files, 4, "\(rig)")
            XCTAssertEqual(first.uploaded.count, 4, "\(rig)")
            let second = try await rig.backupCompleted()
            XCTAssertEqual(second.uploaded, [], "\(rig): nothing uploads again")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            let restored = try tree(rig.target)
            XCTAssertEqual(restored.count, 6, "\(rig): four files and two folders")
            assertSameTree(restored, try tree(rig.source), "\(rig)")
        }
    }

    // MARK: Row 5: names up to the file system's limit

    /// Before: the backup exited 0, but the restore staged each download as
    /// `<name>.cloudanchor-part`, 17 bytes longer than a 254-byte name, which the file system
    /// refused. Now staging names are short and never derived from the file's name: names of
    /// 254 and 255 bytes (the ext4 limit), ASCII and multi-byte, back up and restore.
    func testRow05_namesUpToTheFileSystemLimitBackUpAndRestore() async throws {
        try await forEachDirectoryBackend { rig in
            let long = String(repeating: "n", count: 254)
            let longest = String(repeating: "m", count: 255)
            let multiByte = String(repeating: "\u{E9}", count: 127)
            try rig.write(long, "254 bytes")
            try rig.write("deep/" + longest, "255 bytes")
            try rig.write(multiByte + "/" + multiByte, "254 bytes of UTF-8, twice")
            XCTAssertEqual(multiByte.utf8.count, 254)
            _ = try await rig.backupCompleted()
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    // MARK: Row 6: user files with the engine's names

    /// Before: the scan skipped every name starting with `.cloudanchor` or ending in
    /// `.cloudanchor-part`, and a user's `cloudanchor.marker` was overwritten by the manifest;
    /// the restore said "completed" without them. Now user files live under `files/` in the
    /// remote, apart from every engine name, and the state files live outside the folder: all
    /// are backed up and restored, at the top and deeper.
    func testRow06_userFilesNamedLikeTheEnginesFilesAreBackedUpAndRestored() async throws {
        try await forEachDirectoryBackend { rig in
            let names = ["cloudanchor.marker", ".cloudanchor-identity", ".cloudanchor-state.sqlite", ".cloudanchor-tmp-1",
                         "photo.jpg.cloudanchor-part", ".cloudanchor-restore.sqlite", ".cloudanchor-staging-0", "cloudanchor.lease"]
            for name in names {
                try rig.write(name, "user file \(name)")
                try rig.write("sub/" + name, "nested user file \(name)")
            }
            let summary = try await rig.backupCompleted()
            XCTAssertEqual(summary.files, names.count * 2, "\(rig)")
            let again = try await rig.backupCompleted()
            XCTAssertEqual(again.uploaded, [], "\(rig): nothing uploads again")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    // MARK: Row 10: a file changed while it uploads

    /// Before: the engine recorded the hash it computed before the upload, whatever the upload
    /// sent: the backup exited 0 and the restore failed until the next backup. Now the file's
    /// stamp (size, times, inode) is compared before and after its put: a file written during its
    /// upload is never recorded as backed up; the backup scans and sends it again, and completes
    /// once it holds still, or reports it by name (`.incomplete`) when it never does.
    func testRow10_aFileChangedWhileItUploadsIsNeverRecordedAsBackedUpAndIsSentAgainOrNamed() async throws {
        try await forEachDirectoryBackend { rig in
            let growing = try rig.write("log.txt", "line 1\n")
            try rig.write("still.txt", "still")
            let writes = Recorder<String>()
            let once = FaultInjectingStorage(wrapping: rig.storage)
            once.onOperation { operation, path in
                guard operation == .writeFile, path == "files/log.txt" else { return }
                writes.append(path)
                if writes.all.count == 1 { try Self.append("line 2\n", to: growing) }
            }
            guard case .completed(let summary) = try await rig.backup(through: once) else {
                return XCTFail("\(rig): a file that changed once is sent again and the backup completes")
            }
            XCTAssertEqual(writes.all.count, 2, "\(rig): the changed file was sent twice")
            XCTAssertEqual(summary.changing, [], "\(rig)")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")

            let always = FaultInjectingStorage(wrapping: rig.storage)
            always.onOperation { operation, path in
                if operation == .writeFile, path == "files/log.txt" { try Self.append("more\n", to: growing) }
            }
            try Self.append("line 3\n", to: growing)
            let outcome = try await rig.backup(through: always)
            guard case .incomplete(let incomplete) = outcome else { return XCTFail("\(rig): expected .incomplete, got \(outcome)") }
            XCTAssertEqual(incomplete.changing, ["log.txt"], "\(rig): the file is named")
            let restored = try await rig.restore(into: rig.directory.appendingPathComponent("second"))
            XCTAssertEqual(restored, .incomplete([RestoreProblem(path: "log.txt", kind: .damaged)]),
                           "\(rig): the restore does not call the changed file restored either")
            guard case .completed = try await rig.backup() else { return XCTFail("\(rig): once it holds still it backs up") }
        }
    }

    // MARK: Row 11: a backup that only deletes

    /// Before: the marker uploaded only when a file uploaded, so a backup that only deleted (with
    /// `--allow-shrink`) left the old manifest, listing 10 files where 3 remained, and the
    /// restore failed. Now the manifest is compared by content and rewritten.
    func testRow11_aBackupThatOnlyDeletesRewritesTheManifest() async throws {
        try await forEachDirectoryBackend { rig in
            for index in 0..<10 { try rig.write("f\(index).txt", "file \(index)") }
            _ = try await rig.backupCompleted()
            for index in 3..<10 { try FileManager.default.removeItem(at: rig.source.appendingPathComponent("f\(index).txt")) }
            guard case .stopped(.shrinkSuspected(deletes: 7, known: 10)) = try await rig.backup() else {
                return XCTFail("\(rig): the shrink guard still stops it first")
            }
            let summary = try await rig.backupCompleted(allowShrink: true)
            XCTAssertEqual(summary.uploaded, [], "\(rig): no file uploads")
            XCTAssertEqual(summary.deleted.count, 7, "\(rig)")
            let manifest = try Manifest(decoding: try await rig.remoteBytes(markerPath))
            XCTAssertEqual(manifest.files.map(\.path), ["f0.txt", "f1.txt", "f2.txt"], "\(rig): the manifest was rewritten")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    // MARK: Row 12: two backups into one remote at once

    /// Before: nothing kept two backups apart; in 1 of 5 tries both exited 0, the remote held
    /// both sources' files (80) and the manifest described one of them, so the restore failed.
    /// Now a run writes only while it holds the remote's writer lease (a folder's `flock`, a
    /// WebDAV `LOCK`): the second backup stops with `.remoteBusy` naming the holder and having
    /// written nothing; once the first is done the second runs normally.
    func testRow12_twoBackupsIntoOneRemoteAtOnceNeverInterleave() async throws {
        try await forEachDirectoryBackend { rig in
            let other = rig.directory.appendingPathComponent("other-source")
            let otherState = rig.directory.appendingPathComponent("other-state.sqlite").path
            for index in 0..<5 {
                try rig.write("a\(index).txt", "first source \(index)")
                try rig.write("b\(index).txt", Data("second source \(index)".utf8), in: other)
            }
            let inside = Signal()
            let proceed = Signal()
            let paused = FaultInjectingStorage(wrapping: rig.storage)
            paused.onOperation { operation, path in
                guard operation == .writeFile, path == "files/a2.txt" else { return }
                inside.fire()
                await proceed.wait()
            }
            let first = Task { try await rig.backup(through: paused) }
            await inside.wait()
            let second = try await rig.backup(from: other, statePath: otherState)
            proceed.fire()
            guard case .stopped(.remoteBusy(let owner, _)) = second else {
                return XCTFail("\(rig): the second backup was not stopped: \(second)")
            }
            XCTAssertTrue(owner.contains("pid \(ProcessInfo.processInfo.processIdentifier)"), "\(rig): the holder is named: \(owner)")
            guard case .completed = try await first.value else { return XCTFail("\(rig): the first backup completes") }
            let files = try await rig.remotePaths().filter { $0.hasPrefix("files/") }
            XCTAssertEqual(files, (0..<5).map { "files/a\($0).txt" }, "\(rig): only the first source's files")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")

            guard case .completed = try await rig.backup(allowShrink: true, from: other, statePath: otherState) else {
                return XCTFail("\(rig): once the first is done, the second runs")
            }
            let second2 = rig.directory.appendingPathComponent("second-target")
            guard case .completed = try await rig.restore(into: second2, statePath: rig.directory.path + "/r2.sqlite") else {
                return XCTFail("\(rig): the second source restores")
            }
            assertSameTree(try tree(second2), try tree(other), "\(rig)")
        }
    }

    // MARK: Row 13: what a killed backup leaves

    /// Before: in 8 of 12 SIGKILLs the folder backend's temporary files (`.cloudanchor-tmp-*`,
    /// 2-6 MB, written beside their targets) stayed in the remote forever. Now temporary files
    /// are written in the remote's root only, and the next run (holding the lease) removes every
    /// one a killed run left; a run killed after a put completes the backup without putting that
    /// file again, and leaves nothing but the backup in the remote. (The real SIGKILLs are in
    /// `CommandLineTests.testKillingTheBackupAndRestoreCommandsMidRun…`.)
    func testRow13_whatAKilledBackupLeftIsCleanedByTheNextRunAndNothingIsPutTwice() async throws {
        try await forEachDirectoryBackend { rig in
            for index in 0..<6 { try rig.write("f\(index).bin", Data(repeating: UInt8(index), count: 10_000 * (index + 1))) }
            let points = CrashPoints(crashAt: 4)
            let dying = FaultInjectingStorage(wrapping: rig.storage, crashPoints: points)
            do {
                _ = try await rig.backup(through: dying)
                XCTFail("\(rig): the modelled kill did not happen")
            } catch let crash as CrashPoints.Crash {
                XCTAssertEqual(crash.label, "after writeFile files/f1.bin", "\(rig)")
            }
            if let remoteFolder = rig.remoteFolder {
                for index in 0..<3 {
                    try Data(repeating: 7, count: 2_000_000 + index).write(
                        to: remoteFolder.appendingPathComponent(".cloudanchor-tmp-\(UUID().uuidString.lowercased())"))
                }
            }
            let next = FaultInjectingStorage(wrapping: rig.storage)
            guard case .completed = try await rig.backup(through: next) else { return XCTFail("\(rig): the next run completes") }
            XCTAssertEqual(next.completed(.writeFile), (2..<6).map { "files/f\($0).bin" }, "\(rig): f0 and f1 are not put again")
            if let remoteFolder = rig.remoteFolder {
                let left = try FileManager.default.contentsOfDirectory(atPath: remoteFolder.path).filter { $0.hasPrefix(".cloudanchor-tmp") }
                XCTAssertEqual(left, [], "\(rig): temporary files were left")
                XCTAssertEqual(next.completed(.removeOrphans), [""], "\(rig)")
            }
            let remote = try await rig.remotePaths()
            XCTAssertEqual(remote, [markerPath] + (0..<6).map { "files/f\($0).bin" }, "\(rig): nothing but the backup")
            guard case .completed = try await rig.restore() else { return XCTFail("\(rig): the restore completes") }
            assertSameTree(try tree(rig.target), try tree(rig.source), "\(rig)")
        }
    }

    /// A run killed while it held a WebDAV lock leaves the lock on the server until it times
    /// out; the next run over the same state file presents the lock's token (kept in the state)
    /// and takes it back at once, while a claimant with another state file is refused.
    func testRow13_aKilledRunsWebDAVLockIsTakenBackByTheNextRunOverTheSameStateOnly() async throws {
        try await forEachDirectoryBackend([.webdav]) { rig in
            try rig.write("a.txt", "alpha")
            let state = try StateStore(path: rig.backupStatePath)
            let claim = LeaseClaim(owner: "killed run", token: try await state.writerID(), duration: 600, now: Date())
            guard case .granted(let orphaned) = try await rig.storage.acquireLease(claim) else {
                return XCTFail("the killed run's lock")
            }
            try await state.setLeaseHandle(orphaned.handle)
            let stranger = try await rig.backup(statePath: rig.directory.appendingPathComponent("stranger.sqlite").path)
            guard case .stopped(.remoteBusy(owner: "killed run", _)) = stranger else {
                return XCTFail("another state file is refused while the lock lives: \(stranger)")
            }
            guard case .completed = try await rig.backup() else { return XCTFail("the same state file takes its lock back") }
            let remote = try await rig.remotePaths()
            XCTAssertEqual(remote, ["cloudanchor.marker", "files/a.txt"], "the lease file is gone with the lock")
        }
    }

    // MARK: Row 14: a restore into a folder that is not empty

    /// Before: the restore overwrote same-named files without a word, and a folder where a file
    /// had to go failed the run after earlier files had been overwritten. Now the target is
    /// inspected before anything is written: every path where it holds something else is listed
    /// (`.conflicts`) and nothing is written; files already there with the right content count
    /// as in place; other files in the folder are left alone. `overwrite` replaces what differs,
    /// but a non-empty folder in the way stops even that, again before any write.
    func testRow14_aRestoreIntoAFolderThatIsNotEmptyListsTheConflictsBeforeWritingAnything() async throws {
        try await forEachDirectoryBackend { rig in
            try rig.write("a.txt", "alpha")
            try rig.write("same.txt", "same")
            try rig.write("d/e.txt", "epsilon")
            try rig.write("f/g.txt", "gamma")
            try FileManager.default.createSymbolicLink(atPath: rig.source.path + "/link", withDestinationPath: "a.txt")
            _ = try await rig.backupCompleted()
            let target = rig.target
            try rig.write("a.txt", Data("mine".utf8), in: target)
            try rig.write("same.txt", Data("same".utf8), in: target)
            try rig.write("unrelated.txt", Data("keep me".utf8), in: target)
            try rig.write("d/e.txt/inside", Data("a folder where a file goes".utf8), in: target)
            try rig.write("f", Data("a file where a folder goes".utf8), in: target)
            try FileManager.default.createSymbolicLink(atPath: target.path + "/link", withDestinationPath: "elsewhere")
            let before = try tree(target)
            let refused = try await rig.restore()
            XCTAssertEqual(refused, .conflicts([
                RestoreConflict(path: "a.txt", kind: .fileDiffers, isBlocking: false),
                RestoreConflict(path: "d/e.txt", kind: .folderInTheWay, isBlocking: true),
                RestoreConflict(path: "f", kind: .notAFolder, isBlocking: false),
                RestoreConflict(path: "link", kind: .linkDiffers, isBlocking: false),
            ]), "\(rig)")
            assertSameTree(try tree(target), before, "\(rig): something was written")
            let blocked = try await rig.restore(overwrite: true)
            XCTAssertEqual(blocked, .conflicts([RestoreConflict(path: "d/e.txt", kind: .folderInTheWay, isBlocking: true)]),
                           "\(rig): a non-empty folder in the way stops even --overwrite")
            assertSameTree(try tree(target), before, "\(rig): something was written")
            try FileManager.default.removeItem(at: target.appendingPathComponent("d/e.txt/inside"))
            guard case .completed(let summary) = try await rig.restore(overwrite: true) else {
                return XCTFail("\(rig): with the folder emptied, --overwrite replaces what differs")
            }
            XCTAssertEqual(summary.alreadyInPlace, 1, "\(rig): same.txt was verified in place, not downloaded")
            var expected = try tree(rig.source)
            expected[ExactPath("unrelated.txt")] = .file(Data("keep me".utf8))
            assertSameTree(try tree(target), expected, "\(rig)")
        }
    }

    // MARK: Row 15: a source that does not exist

    /// Before: the CLI created the `folder:` remote before it looked at the source, so a typo in
    /// `--from` left an empty remote folder behind. Now the scan comes first: a missing source
    /// throws a `FileProblem` naming it and `prepare` (where the CLI creates the folder) never
    /// runs, nor does anything touch the storage. The CLI side is
    /// `CommandLineTests.testRow15_aBackupFromASourceThatDoesNotExistCreatesNoRemoteFolder`.
    func testRow15_aSourceThatDoesNotExistIsNamedAndNothingIsPreparedOrTouched() async throws {
        try await forEachDirectoryBackend { rig in
            let missing = rig.directory.appendingPathComponent("no-such-folder")
            let journal = FaultInjectingStorage(wrapping: rig.storage)
            let prepared = Recorder<Bool>()
            let backup = DirectoryBackup(source: missing, storage: journal, state: try StateStore(path: rig.backupStatePath),
                                         prepare: { prepared.append(true) })
            do {
                _ = try await backup.run()
                XCTFail("\(rig): a missing source backed up")
            } catch let problem as FileProblem {
                XCTAssertEqual(problem, FileProblem(.notFound, path: missing.path))
                XCTAssertEqual(problem.description, "local_io: no such file or folder: \(missing.path)")
            }
            XCTAssertEqual(prepared.all, [], "\(rig)")
            XCTAssertEqual(journal.journal(), [], "\(rig): the storage was touched")
        }
    }

    // MARK: Row 16: an unreadable file

    /// Before: the scan threw a bare `local_io` and the user could not tell which file. Now every
    /// file and folder that cannot be read is named with its cause
    /// (`local_io: permission denied: photos/2024/a.jpg`) and nothing is written. (The test runs
    /// the backup as an unprivileged user when it runs as root, which reads everything.)
    func testRow16_anUnreadableFileIsNamedWithItsCauseAndNothingIsWritten() async throws {
        try await forEachDirectoryBackend { rig in
            try rig.write("photos/2024/ok.jpg", "fine")
            let locked = try rig.write("photos/2024/a.jpg", "secret")
            try FileManager.default.createDirectory(at: rig.source.appendingPathComponent("closed"), withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: locked.path)
            try FileManager.default.setAttributes([.posixPermissions: 0], ofItemAtPath: rig.source.path + "/closed")
            let journal = FaultInjectingStorage(wrapping: rig.storage)
            let backup = DirectoryBackup(source: rig.source, storage: journal, state: try StateStore(path: rig.backupStatePath))
            let outcome = try await Self.asUnprivilegedUser { try await backup.run() }
            XCTAssertEqual(outcome, .unreadable([FileProblem(.permissionDenied, path: "closed"),
                                                 FileProblem(.permissionDenied, path: "photos/2024/a.jpg")]), "\(rig)")
            if case .unreadable(let problems) = outcome {
                XCTAssertEqual(problems.map(\.description), ["local_io: permission denied: closed",
                                                             "local_io: permission denied: photos/2024/a.jpg"])
            }
            XCTAssertEqual(journal.journal(), [], "\(rig): nothing was written, nothing even listed")
        }
    }

    /// Before: a file that could not be read during its upload stopped the backup with a bare
    /// `local_io`. Now the engine names it (`FileProblem`, path relative to the source).
    func testRow16_aFileThatCannotBeReadDuringItsUploadIsNamed() async throws {
        try await forEachDirectoryBackend { rig in
            let vanishing = try rig.write("photos/b.jpg", "here at the scan")
            let storage = FaultInjectingStorage(wrapping: rig.storage)
            storage.onOperation { operation, path in
                if operation == .writeFile, path == "files/photos/b.jpg" { try FileManager.default.removeItem(at: vanishing) }
            }
            do {
                let outcome = try await rig.backup(through: storage)
                XCTFail("\(rig): expected a FileProblem, got \(outcome)")
            } catch let problem as FileProblem {
                XCTAssertEqual(problem.description, "local_io: no such file or folder: photos/b.jpg", "\(rig)")
            }
        }
    }

    /// Appends `text` to the file at `url`.
    private static func append(_ text: String, to url: URL) throws {
        let handle = try FileHandle(forWritingTo: url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(text.utf8))
        try handle.close()
    }

    /// Runs `body` with the effective user `nobody` when the test runs as root (root reads every
    /// file whatever its mode), as is otherwise.
    private static func asUnprivilegedUser<Result>(_ body: () async throws -> Result) async throws -> Result {
        guard geteuid() == 0 else { return try await body() }
        guard seteuid(65_534) == 0 else { throw CloudError.localIO }
        defer { _ = seteuid(0) }
        return try await body()
    }

    /// A Unix socket bound at `path`.
    private static func bindSocket(at path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard descriptor >= 0, bound == 0 else { throw CloudError.localIO }
        return descriptor
    }

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
