import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Restores a directory backup into a local folder: the `synckernel restore` command's engine.
///
/// Invariant: nothing is written before the manifest checked out (`.damagedManifest` otherwise)
/// and the target was inspected: an entry of the target that differs from the manifest at one of
/// its paths is a conflict, and conflicts stop the restore before any write unless `overwrite`
/// is set (a non-empty folder in the way stops it even then). Every file is placed only after its
/// content matched the manifest's hash (a file already there with that content counts as in
/// place); links are created verbatim and last, so nothing is ever written through one; every
/// folder is created, empty ones too. `.completed` is returned only when every entry of the
/// manifest is in place; otherwise `.incomplete` names each file that is not, and why.
public struct DirectoryRestore: Sendable {
    private let storage: any CloudStorage
    private let availability: any AvailabilitySource
    private let state: StateStore
    private let target: URL
    private let overwrite: Bool
    private let engine: RestoreEngine

    /// A restore of the backup in `storage` into `target`, recorded in `state`; `placement` is
    /// offered every verified file (the CLI marks restored kernel stores there).
    public init(storage: any CloudStorage, state: StateStore, target: URL, overwrite: Bool = false,
                availability: any AvailabilitySource = FixedAvailability(),
                placement: any RestorePlacement = KeepWhereLanded(),
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.availability = availability
        self.state = state
        self.target = target
        self.overwrite = overwrite
        engine = RestoreEngine(storage: storage, availability: availability, state: state, placement: placement, now: now)
    }

    /// Starts a new restore of the backup the storage holds now.
    public func start(onProgress: @escaping @Sendable (RestoreProgress) -> Void = { _ in }) async throws
        -> DirectoryRestoreOutcome {
        let found: FoundBackup
        switch await probe() {
        case .found(let backup): found = backup
        case .none, .notReady: return .nothingToRestore
        case .unavailable(let reason): return .unavailable(reason)
        case .failed(let error): throw error
        }
        guard let manifest = try? Manifest(decoding: found.marker) else { return .damagedManifest }
        let inspection = try inspect(manifest, skipping: [])
        if let refusal = refusal(inspection) { return refusal }
        if let earlier = try await state.loadRecord()?.stagingFolder { try? FileManager.default.removeItem(at: earlier) }
        try prepare(manifest, inspection)
        let staging = try stagingFolder(manifest)
        let files = manifest.files.filter { !inspection.inPlace.contains(ExactPath($0.path)) }.map { file in
            RestoreFile(remotePath: DirectoryBackup.contentPrefix + file.path, localURL: local(file.path), required: false,
                        size: file.size, sha256: file.sha256)
        }
        let outcome = try await engine.start(RestorePlan(source: found.source, files: files, stagingFolder: staging),
                                             onProgress: onProgress)
        return try await finish(outcome, manifest, inPlace: inspection.inPlace.count)
    }

    /// Continues the recorded restore, trying every file that is not in place again.
    public func resume(onProgress: @escaping @Sendable (RestoreProgress) -> Void = { _ in }) async throws
        -> DirectoryRestoreOutcome {
        guard let record = try await state.loadRecord() else { return .nothingToRestore }
        let found: FoundBackup
        switch await probe() {
        case .found(let backup): found = backup
        case .none, .notReady: return .nothingToRestore
        case .unavailable(let reason): return .unavailable(reason)
        case .failed(let error): throw error
        }
        guard found.source.matches(record.source) else { return .sourceChanged }
        guard let manifest = try? Manifest(decoding: found.marker) else { return .damagedManifest }
        let recorded = Set(record.files.map { ExactPath(DirectoryBackup.userPath($0.file.remotePath)) })
        let inspection = try inspect(manifest, skipping: recorded)
        if let refusal = refusal(inspection) { return refusal }
        try prepare(manifest, inspection)
        let outcome = try await engine.resume(resetAttempts: true, onProgress: onProgress)
        let inPlace = manifest.files.count { !recorded.contains(ExactPath($0.path)) }
        return try await finish(outcome, manifest, inPlace: inPlace)
    }

    private func probe() async -> ProbeResult {
        await BackupProbe(storage: storage, availability: availability, markerPath: SyncPolicy().markerPath).run()
    }

    private func local(_ path: String) -> URL {
        URL(fileURLWithPath: target.path + "/" + path)
    }

    /// The outcome that stops the restore before any write, if any.
    private func refusal(_ inspection: Inspection) -> DirectoryRestoreOutcome? {
        if inspection.conflicts.isEmpty { return nil }
        if !overwrite { return .conflicts(inspection.conflicts) }
        let blocking = inspection.conflicts.filter(\.isBlocking)
        return blocking.isEmpty ? nil : .conflicts(blocking)
    }

    /// What the target holds at the manifest's paths.
    private struct Inspection {
        var conflicts: [RestoreConflict] = []
        var inPlace: Set<ExactPath> = []
    }

    /// Compares the target with the manifest, entry by entry, without writing; the paths in
    /// `skipping` are files this restore recorded (its own to write).
    private func inspect(_ manifest: Manifest, skipping: Set<ExactPath>) throws -> Inspection {
        var inspection = Inspection()
        var info = stat()
        if lstat(target.path, &info) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
            inspection.conflicts.append(RestoreConflict(path: ".", kind: .notAFolder, isBlocking: true))
            return inspection
        }
        var blocked: [String] = []
        for entry in manifest.entries {
            let path = entry.path
            if skipping.contains(ExactPath(path)) { continue }
            if blocked.contains(where: { path.bytesHavePrefix($0 + "/") }) { continue }
            guard lstat(local(path).path, &info) == 0 else {
                if errno == ENOENT || errno == ENOTDIR { continue }
                throw FileProblem(FileProblem.Cause(errno: errno), path: path)
            }
            let kind = info.st_mode & S_IFMT
            switch entry {
            case .folder:
                if kind != S_IFDIR {
                    inspection.conflicts.append(RestoreConflict(path: path, kind: .notAFolder, isBlocking: false))
                    blocked.append(path)
                }
            case .file(_, let size, let sha256):
                if kind == S_IFREG {
                    if Int64(info.st_size) == size, (try? ContentHash.sha256(regularFileAt: local(path).path).hash) == sha256 {
                        inspection.inPlace.insert(ExactPath(path))
                    } else {
                        inspection.conflicts.append(RestoreConflict(path: path, kind: .fileDiffers, isBlocking: false))
                    }
                } else {
                    inspection.conflicts.append(conflict(at: path, kind: kind))
                }
            case .link(_, let target):
                if kind == S_IFLNK, Self.linkTarget(local(path).path) == target { continue }
                inspection.conflicts.append(kind == S_IFLNK
                    ? RestoreConflict(path: path, kind: .linkDiffers, isBlocking: false) : conflict(at: path, kind: kind))
            }
        }
        return inspection
    }

    private func conflict(at path: String, kind: mode_t) -> RestoreConflict {
        switch kind {
        case S_IFDIR:
            let isEmpty = (try? FileManager.default.contentsOfDirectory(atPath: local(path).path).isEmpty) ?? false
            return RestoreConflict(path: path, kind: .folderInTheWay, isBlocking: !isEmpty)
        case S_IFREG: return RestoreConflict(path: path, kind: .fileDiffers, isBlocking: false)
        case S_IFLNK: return RestoreConflict(path: path, kind: .linkDiffers, isBlocking: false)
        default: return RestoreConflict(path: path, kind: .otherKind, isBlocking: false)
        }
    }

    /// Clears what `--overwrite` replaces (an entry where a folder goes, an empty folder where a
    /// file or link goes) and creates every folder of the manifest. Files in the way are left for
    /// the atomic rename that replaces them; links in the way are replaced when links are made.
    private func prepare(_ manifest: Manifest, _ inspection: Inspection) throws {
        do {
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
        } catch {
            throw FileProblem(FileProblem.Cause(error), path: target.path)
        }
        for conflict in inspection.conflicts {
            let path = local(conflict.path).path
            let cleared = switch conflict.kind {
            case .notAFolder: unlink(path) == 0
            case .folderInTheWay: rmdir(path) == 0
            case .fileDiffers, .linkDiffers, .otherKind: true
            }
            if !cleared { throw FileProblem(FileProblem.Cause(errno: errno), path: conflict.path) }
        }
        for folder in manifest.folders where mkdir(local(folder).path, 0o755) != 0 && errno != EEXIST {
            throw FileProblem(FileProblem.Cause(errno: errno), path: folder)
        }
    }

    /// A fresh staging folder in the target whose name neither exists there nor is a top-level
    /// name of the manifest.
    private func stagingFolder(_ manifest: Manifest) throws -> URL {
        let topLevel = Set(manifest.entries.map { ExactPath(String($0.path.prefix { $0 != "/" })) })
        while true {
            let name = ".cloudanchor-staging-" + String(UInt32.random(in: .min ... .max), radix: 16)
            let url = target.appendingPathComponent(name)
            if topLevel.contains(ExactPath(name)) || FileStamp.of(path: url.path) != nil { continue }
            guard mkdir(url.path, 0o700) == 0 else { throw FileProblem(FileProblem.Cause(errno: errno), path: name) }
            return url
        }
    }

    /// Makes the links, then turns the engine's outcome into the directory outcome.
    private func finish(_ outcome: RestoreOutcome, _ manifest: Manifest, inPlace: Int) async throws
        -> DirectoryRestoreOutcome {
        switch outcome {
        case .failed(.sourceChanged): return .sourceChanged
        case .failed(.sourceUnavailable), .failed(.notReady), .failed(.noPlan): return .nothingToRestore
        case .failed(.notAvailable): return .unavailable(.noAccount)
        case .failed(.needsConsent): return .unavailable(.needsConsent)
        case .failed(.cloud(let error)): throw error
        case .completed, .partial, .failed(.placementRejected): break
        }
        var problems = makeLinks(manifest)
        for status in try await engine.statuses() where !status.isDone {
            problems.append(RestoreProblem(path: DirectoryBackup.userPath(status.file.remotePath), status: status))
        }
        problems.sort { $0.path.bytesPrecede($1.path) }
        guard problems.isEmpty, case .completed = outcome else { return .incomplete(problems) }
        if let staging = try await state.loadRecord()?.stagingFolder { try? FileManager.default.removeItem(at: staging) }
        return .completed(RestoreSummary(files: manifest.files.count, alreadyInPlace: inPlace,
                                         links: manifest.links.count, folders: manifest.folders.count))
    }

    /// Creates every link of the manifest (replacing a different entry only with `overwrite`);
    /// returns the links that could not be made.
    private func makeLinks(_ manifest: Manifest) -> [RestoreProblem] {
        var problems: [RestoreProblem] = []
        for (path, linkTarget) in manifest.links {
            let url = local(path).path
            if Self.linkTarget(url) == linkTarget { continue }
            if FileStamp.of(path: url) != nil {
                guard overwrite, FileStamp.of(path: url)?.kind != UInt32(S_IFDIR), unlink(url) == 0 else {
                    problems.append(RestoreProblem(path: path, kind: .inTheWay))
                    continue
                }
            }
            if symlink(linkTarget, url) != 0 {
                problems.append(RestoreProblem(path: path, kind: .notPlaced(FileProblem.Cause(errno: errno))))
            }
        }
        return problems
    }

    /// The target of the link at `path`, or `nil` when it is not a link.
    static func linkTarget(_ path: String) -> String? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.withUnsafeMutableBufferPointer { pointer in
            pointer.baseAddress.map { base in
                base.withMemoryRebound(to: CChar.self, capacity: pointer.count) { readlink(path, $0, pointer.count) }
            } ?? -1
        }
        guard count >= 0 else { return nil }
        return String(validating: buffer.prefix(count), as: UTF8.self)
    }
}
