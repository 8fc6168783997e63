import Foundation
import SQLiteStore

/// Restores a backup file by file, resumably, keeping the contract's restore rules.
///
/// Invariant: the record in the state file is saved after every download and every placement,
/// with downloaded (local, not placed) separate from done (placed); a done file is never
/// downloaded again and neither is a staged file still on disk that still checks out; a file
/// whose plan gives a hash reaches its local path only after its content was checked against
/// it. Every failure is recorded with its code on the file (`statuses()`). Runs are serialised.
public actor RestoreEngine {
    private let storage: any CloudStorage
    private let availability: any AvailabilitySource
    private let state: StateStore
    private let placement: any RestorePlacement
    private let markerPath: String
    private let maxAttempts: Int
    private let now: @Sendable () -> Date
    private let gate = AsyncGate()
    private var staging: URL?
    /// The actor's own thread: its local file work (staging, hashing, the marker) blocks there,
    /// never on the cooperative pool.
    package nonisolated let executor = SerialThreadExecutor(name: "synckernel.cloud-restore")

    /// The actor's executor: `executor`.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Creates a restore engine; `maxAttempts` failures make an optional file skipped until
    /// `resume(resetAttempts: true)`.
    public init(storage: any CloudStorage, availability: any AvailabilitySource = FixedAvailability(),
                state: StateStore, placement: any RestorePlacement = KeepWhereLanded(),
                markerPath: String = SyncPolicy().markerPath, maxAttempts: Int = 3,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.storage = storage
        self.availability = availability
        self.state = state
        self.placement = placement
        self.markerPath = markerPath
        self.maxAttempts = maxAttempts
        self.now = now
    }

    /// Records `plan` (replacing any earlier record) and runs it.
    public func start(_ plan: RestorePlan,
                      onProgress: @escaping @Sendable (RestoreProgress) -> Void = { _ in }) async throws -> RestoreOutcome {
        try await gate.withGate {
            try await state.saveRecord(plan, startedAt: now())
            return try await run(onProgress: onProgress)
        }
    }

    /// Revalidates the recorded source, then continues the recorded plan.
    public func resume(resetAttempts: Bool = false,
                       onProgress: @escaping @Sendable (RestoreProgress) -> Void = { _ in }) async throws -> RestoreOutcome {
        try await gate.withGate {
            guard let record = try await state.loadRecord() else { return .failed(.noPlan) }
            let probe = await BackupProbe(storage: storage, availability: availability, markerPath: markerPath).run()
            if let failure = Self.revalidate(probe, against: record.source) { return .failed(failure) }
            if resetAttempts { try await state.resetAttempts() }
            return try await run(onProgress: onProgress)
        }
    }

    /// Every file of the recorded plan, in plan order, with whether it is done and its last
    /// failure; empty when no plan is recorded.
    public func statuses() async throws -> [RestoreFileStatus] {
        guard let record = try await state.loadRecord() else { return [] }
        return record.files.map { recorded in
            RestoreFileStatus(file: recorded.file, isDone: recorded.phase == .done, attempts: recorded.attempts,
                              lastError: recorded.lastError.flatMap { code in CloudError.allCases.first { $0.code == code } },
                              wasRejected: recorded.lastError == RestoreFileStatus.rejectedCode)
        }
    }

    /// The failure a probe result means for a restore pinned to `source`, or `nil` to continue.
    static func revalidate(_ probe: ProbeResult, against source: SourceRef) -> RestoreFailure? {
        switch probe {
        case .found(let found): found.source.matches(source) ? nil : .sourceChanged
        case .none: .sourceUnavailable
        case .notReady: .notReady
        case .unavailable(.needsConsent), .failed(.needsConsent): .needsConsent
        case .unavailable, .failed(.notAvailable): .notAvailable
        case .failed(let error): .cloud(error)
        }
    }

    private func run(onProgress: @escaping @Sendable (RestoreProgress) -> Void) async throws -> RestoreOutcome {
        guard let record = try await state.loadRecord() else { return .failed(.noPlan) }
        staging = record.stagingFolder
        var files = record.files
        let groups = Self.groups(files)
        var reporter = ProgressReporter(groups: groups, send: onProgress)
        let fetchable = files.filter { file in
            file.phase != .done && !(file.phase == .downloaded && Self.exists(file.file.localURL))
                && (file.attempts < maxAttempts || Self.isRequired(file, in: groups, files: files))
        }
        await storage.prefetch(fetchable.map(\.file.remotePath))
        reporter.report(files)

        let required = groups.filter { $0.contains { files[$0].file.required } }
        let optional = groups.filter { !$0.contains { files[$0].file.required } }
        for group in required {
            let open = group.filter { files[$0].phase != .done }
            if open.isEmpty { continue }
            for index in open {
                try Task.checkCancellation()
                do {
                    try await land(&files[index])
                } catch let error as CloudError {
                    try await countFailure(&files[index], error.code)
                    return .failed(.cloud(error))
                }
                reporter.report(files)
            }
            try Task.checkCancellation()
            let decision = try await offer(open, &files)
            reporter.report(files)
            if decision == .rejected { return .failed(.placementRejected(group: files[open[0]].file.group)) }
        }
        for group in optional {
            var landed: [Int] = []
            for index in group where files[index].phase != .done && files[index].attempts < maxAttempts {
                try Task.checkCancellation()
                do {
                    try await land(&files[index])
                    landed.append(index)
                } catch let error as CloudError {
                    try await countFailure(&files[index], error.code)
                }
                reporter.report(files)
            }
            if !landed.isEmpty {
                try Task.checkCancellation()
                _ = try await offer(landed, &files)
                reporter.report(files)
            }
        }
        let pending = files.count { $0.phase != .done }
        guard pending == 0 else { return .partial(pending: pending) }
        if let completedAt = record.completedAt { return .completed(at: completedAt) }
        let completedAt = now()
        try await state.completeRecord(at: completedAt)
        return .completed(at: completedAt)
    }

    /// Brings one file to its local path: downloads into its staging file, checks size and hash
    /// when the plan gives them, records it fetched, moves it into place and records it
    /// downloaded. Reuses what a crashed run left when it still checks out; a download that does
    /// not check out is removed and fails with `.contentMismatch`.
    private func land(_ recorded: inout RecordedFile) async throws {
        let local = recorded.file.localURL
        let staging = stagingURL(recorded)
        if recorded.phase == .downloaded, Self.exists(local) { return }
        if recorded.phase == .fetched, !Self.exists(staging), Self.exists(local) {
            try await record(&recorded, .downloaded)
            return
        }
        var staged = Self.exists(staging)
            && (recorded.phase == .fetched || (recorded.file.size != nil && Self.size(of: staging) == recorded.file.size))
        if staged, !Self.checksOut(staging, recorded.file) {
            try? FileManager.default.removeItem(at: staging)
            staged = false
        }
        if !staged {
            do {
                try FileManager.default.createDirectory(at: local.deletingLastPathComponent(),
                                                        withIntermediateDirectories: true)
                try FileManager.default.createDirectory(at: staging.deletingLastPathComponent(),
                                                        withIntermediateDirectories: true)
            } catch {
                throw CloudError.localIO
            }
            try await storage.downloadFile(recorded.file.remotePath, to: staging)
            guard Self.checksOut(staging, recorded.file) else {
                try? FileManager.default.removeItem(at: staging)
                throw CloudError.contentMismatch
            }
        }
        if recorded.phase != .fetched { try await record(&recorded, .fetched) }
        guard rename(staging.path, local.path) == 0 else { throw CloudError.localIO }
        try await record(&recorded, .downloaded)
    }

    /// Where `recorded` is staged: `<staging folder>/<ordinal>`, or `.cloudanchor-part-<ordinal>`
    /// beside its file.
    private func stagingURL(_ recorded: RecordedFile) -> URL {
        if let staging { return staging.appendingPathComponent(String(recorded.ordinal)) }
        return recorded.file.localURL.deletingLastPathComponent().appendingPathComponent(".cloudanchor-part-\(recorded.ordinal)")
    }

    /// Whether the staged file has the plan's size and hash (each only when the plan gives it).
    private static func checksOut(_ staged: URL, _ file: RestoreFile) -> Bool {
        if let size = file.size, size != Self.size(of: staged) { return false }
        guard let expected = file.sha256 else { return true }
        return (try? ContentHash.sha256(regularFileAt: staged.path).hash) == expected
    }

    /// Offers the landed files at `indices` as one group and records the decision.
    private func offer(_ indices: [Int], _ files: inout [RecordedFile]) async throws -> PlacementDecision {
        let group = RestoreGroup(name: files[indices[0]].file.group, files: indices.map { files[$0].file })
        let decision = await placement.place(group)
        let ordinals = indices.map { files[$0].ordinal }
        switch decision {
        case .placed:
            try await state.updateFiles(ordinals, phase: .done)
            for index in indices { files[index].phase = .done }
        case .rejected:
            try await state.updateFiles(ordinals, phase: .pending, attemptsDelta: 1, failure: RestoreFileStatus.rejectedCode)
            for index in indices {
                files[index].phase = .pending
                files[index].attempts += 1
                try? FileManager.default.removeItem(at: files[index].file.localURL)
            }
        }
        return decision
    }

    private func record(_ recorded: inout RecordedFile, _ phase: RestorePhase) async throws {
        try await state.updateFiles([recorded.ordinal], phase: phase)
        recorded.phase = phase
    }

    private func countFailure(_ recorded: inout RecordedFile, _ code: String) async throws {
        try await state.updateFiles([recorded.ordinal], phase: recorded.phase, attemptsDelta: 1, failure: code)
        recorded.attempts += 1
        recorded.lastError = code
    }

    /// The plan's groups as index lists, in order of first appearance; an ungrouped file is its own group.
    static func groups(_ files: [RecordedFile]) -> [[Int]] {
        var order: [String] = []
        var members: [String: [Int]] = [:]
        for (index, file) in files.enumerated() {
            let key = file.file.group.map { "group:" + $0 } ?? "file:\(index)"
            if members[key] == nil { order.append(key) }
            members[key, default: []].append(index)
        }
        return order.compactMap { members[$0] }
    }

    private static func isRequired(_ file: RecordedFile, in groups: [[Int]], files: [RecordedFile]) -> Bool {
        groups.first { $0.contains(file.ordinal) }?.contains { files[$0].file.required } ?? file.file.required
    }

    private static func exists(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    private static func size(of url: URL) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
    }
}

/// Sends restore progress only when a count changed.
private struct ProgressReporter {
    let groups: [[Int]]
    let send: @Sendable (RestoreProgress) -> Void
    var last: RestoreProgress?

    init(groups: [[Int]], send: @escaping @Sendable (RestoreProgress) -> Void) {
        self.groups = groups
        self.send = send
    }

    mutating func report(_ files: [RecordedFile]) {
        let progress = RestoreProgress(
            filesDone: files.count { $0.phase == .done },
            filesDownloaded: files.count { $0.phase == .downloaded },
            filesTotal: files.count,
            groupsDone: groups.count { $0.allSatisfy { files[$0].phase == .done } },
            groupsTotal: groups.count)
        guard progress != last else { return }
        last = progress
        send(progress)
    }
}
