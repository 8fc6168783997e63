import Foundation
import SyncKernelSimulator
import XCTest
@testable import CloudAnchor

/// The one rule as a seeded property: random trees (links in, out and in loops, odd names, NFC
/// and NFD spellings, empty folders, zero-byte and large files), a backup killed at a random
/// point and run again, random damage to the remote (files deleted, flipped or truncated, the
/// manifest truncated or replaced), a restore killed at a random point and resumed. Whenever the
/// restore says `.completed` the target equals the source byte for byte; otherwise it names
/// exactly the damaged files (`.incomplete`) or the manifest (`.damagedManifest`, nothing
/// written), everything else is in place, and the next backup plus `resume` completes.
/// Every failure names its seed.
final class DirectoryPropertyTests: XCTestCase {
    static let folderSeeds: ClosedRange<UInt64> = 1...24
    static let webdavSeeds: ClosedRange<UInt64> = 101...106

    func testWheneverARestoreSaysCompletedTheTreeEqualsTheSnapshotOtherwiseItNamesWhatIsMissing_folder() async throws {
        try await forEachDirectoryBackend([.folder]) { rig in
            for seed in Self.folderSeeds { try await check(seed: seed, on: rig) }
        }
    }

    func testWheneverARestoreSaysCompletedTheTreeEqualsTheSnapshotOtherwiseItNamesWhatIsMissing_webdav() async throws {
        try await forEachDirectoryBackend([.webdav]) { rig in
            for seed in Self.webdavSeeds { try await check(seed: seed, on: rig) }
        }
    }

    /// One seed: a fresh source, remote collection, target and state files below the rig.
    private func check(seed: UInt64, on base: DirectoryRig) async throws {
        var random = SeededGenerator(seed: seed)
        let rig = try await base.fresh("seed-\(seed)")
        let context = "\(rig) seed \(seed)"
        try Self.makeTree(in: rig, &random, allowControlCharacters: rig.backend == .folder)
        let expected = try tree(rig.source)

        let backupKill = Int.random(in: 0...12, using: &random)
        if backupKill > 0 {
            do {
                _ = try await rig.backup(through: FaultInjectingStorage(wrapping: rig.storage, crashPoints: CrashPoints(crashAt: backupKill)))
            } catch is CrashPoints.Crash {}
        }
        guard case .completed = try await rig.backup() else { return XCTFail("\(context): the backup after the kill completes") }

        let damage = try await Self.damage(rig, &random)
        let restoreKill = Int.random(in: 0...10, using: &random)
        var outcome: DirectoryRestoreOutcome
        do {
            let storage = restoreKill > 0
                ? FaultInjectingStorage(wrapping: rig.storage, crashPoints: CrashPoints(crashAt: restoreKill)) : rig.storage
            outcome = try await rig.restore(through: storage)
        } catch is CrashPoints.Crash {
            outcome = try await rig.resume()
            if outcome == .nothingToRestore { outcome = try await rig.restore() }
        }

        switch outcome {
        case .completed:
            XCTAssertTrue(damage.files.isEmpty && !damage.manifest, "\(context): completed over damage \(damage)")
            assertSameTree(try tree(rig.target), expected, "\(context): completed")
            return
        case .damagedManifest:
            XCTAssertTrue(damage.manifest, "\(context): a manifest that was not damaged was called damaged")
            XCTAssertFalse(FileManager.default.fileExists(atPath: rig.target.path), "\(context): a damaged manifest wrote")
        case .incomplete(let problems):
            XCTAssertFalse(damage.manifest, "\(context): restored from a damaged manifest")
            XCTAssertEqual(Set(problems), damage.expectedProblems, "\(context): the problems named")
            var intact = expected
            for problem in problems { intact[ExactPath(problem.path)] = nil }
            var restored = try tree(rig.target)
            for problem in problems { restored[ExactPath(problem.path)] = nil }
            assertSameTree(restored.filter { !$0.key.string.hasPrefix(".cloudanchor-staging-") }, intact,
                           "\(context): everything not named is in place")
        default:
            return XCTFail("\(context): unexpected outcome \(outcome)")
        }

        guard case .completed = try await rig.backup() else { return XCTFail("\(context): the repairing backup completes") }
        let repaired = damage.manifest ? try await rig.restore() : try await rig.resume()
        guard case .completed = repaired else { return XCTFail("\(context): after the next backup, \(repaired)") }
        assertSameTree(try tree(rig.target), expected, "\(context): repaired")
    }

    /// What the damage did, and what the restore must say about it.
    private struct Damage: CustomStringConvertible {
        var files: [String: RestoreProblem.Kind] = [:]
        var manifest = false

        var expectedProblems: Set<RestoreProblem> {
            Set(files.map { RestoreProblem(path: $0.key, kind: $0.value) })
        }

        var description: String {
            "files \(files.keys.sorted()), manifest \(manifest)"
        }
    }

    private static func damage(_ rig: DirectoryRig, _ random: inout SeededGenerator) async throws -> Damage {
        var damage = Damage()
        switch Int.random(in: 0..<10, using: &random) {
        case 0:
            let manifest = try await rig.remoteBytes(markerPath)
            let bytes = Bool.random(using: &random) ? manifest.prefix(Int.random(in: 0..<manifest.count, using: &random))
                                                   : Data("not a manifest".utf8)
            try await rig.replaceRemote(markerPath, with: bytes)
            damage.manifest = true
        case 1...5:
            let files = try await rig.remotePaths().filter { $0.hasPrefix(DirectoryBackup.contentPrefix) }
            for path in files.shuffled(using: &random).prefix(Int.random(in: 1...3, using: &random)) {
                let user = DirectoryBackup.userPath(path)
                let size = try await rig.remoteBytes(path).count
                switch (Int.random(in: 0..<3, using: &random), size) {
                case (0, _), (_, 0):
                    try await rig.deleteRemote(path)
                    damage.files[user] = .missing
                case (1, _):
                    try await rig.flipRemote(path, at: Int.random(in: 0..<size, using: &random))
                    damage.files[user] = .damaged
                default:
                    let truncated = try await rig.remoteBytes(path).prefix(Int.random(in: 0..<size, using: &random))
                    try await rig.replaceRemote(path, with: truncated)
                    damage.files[user] = .damaged
                }
            }
        default:
            break
        }
        return damage
    }

    /// Fills the rig's source with a random tree.
    private static func makeTree(in rig: DirectoryRig, _ random: inout SeededGenerator, allowControlCharacters: Bool) throws {
        var names = ["a", "with space", "caf\u{E9}", "cafe\u{301}", "\u{212B}", "\u{C5}", "%25 percent", "#hash", "q?mark",
                     "emoji \u{1F600}", ".hidden", ".cloudanchor-state.sqlite", "cloudanchor.marker", "x.cloudanchor-part",
                     "trailing.", "semi;colon", "back\\slash", "quote\"s", "amp&er", "plus+sign", "\u{6587}\u{5B57}",
                     String(repeating: "L", count: 200)]
        if allowControlCharacters { names += ["new\nline", "tab\tbed"] }
        var folders = [""]
        var files: [String] = []
        for _ in 0..<Int.random(in: 6...30, using: &random) {
            let parent = folders.randomElement(using: &random) ?? ""
            let name = (names.randomElement(using: &random) ?? "n") + (Bool.random(using: &random) ? "" : " \(files.count)")
            let path = parent.isEmpty ? name : parent + "/" + name
            if folders.contains(where: { $0.bytesEqual(path) }) || files.contains(where: { $0.bytesEqual(path) }) { continue }
            let url = URL(fileURLWithPath: rig.source.path + "/" + path)
            switch Int.random(in: 0..<10, using: &random) {
            case 0...1:
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                folders.append(path)
            case 2:
                let target = ["../" + (names.randomElement(using: &random) ?? "a"), "/etc/hostname", "..", "dangling",
                              files.randomElement(using: &random) ?? "self"].randomElement(using: &random) ?? ".."
                try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: target)
                files.append(path)
            default:
                let size = switch Int.random(in: 0..<12, using: &random) {
                case 0: 0
                case 1: Int.random(in: 300_000...900_000, using: &random)
                default: Int.random(in: 1...5_000, using: &random)
                }
                var bytes = [UInt8](repeating: 0, count: size)
                for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
                try Data(bytes).write(to: url)
                files.append(path)
            }
        }
    }
}

extension DirectoryRig {
    /// A rig of the same backend below a new subfolder, with its own remote collection (or
    /// folder), source, target and state files.
    func fresh(_ name: String) async throws -> DirectoryRig {
        let directory = self.directory.appendingPathComponent(name)
        let source = directory.appendingPathComponent("source")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        if let remoteFolder {
            let remote = remoteFolder.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
            return DirectoryRig(backend: backend, directory: directory, source: source,
                                target: directory.appendingPathComponent("target"), storage: FolderStorage(root: remote),
                                remoteFolder: remote, server: nil)
        }
        guard let server else { throw CloudError.invalidPath }
        return DirectoryRig(backend: backend, directory: directory, source: source, target: directory.appendingPathComponent("target"),
                            storage: server.storage(collection: "backup-\(UUID().uuidString)"), remoteFolder: nil, server: server)
    }
}
