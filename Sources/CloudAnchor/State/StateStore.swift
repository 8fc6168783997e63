import Foundation
import SQLiteStore

/// The state file: the sync state and the restore record, in one SQLite database.
///
/// Invariant: every change is one transaction in a WAL database with `synchronous=FULL`, so a
/// process killed at any point loses at most the change in flight and never leaves a torn record.
/// One connection per store, owned by the actor; several stores (or processes) may open the
/// same file.
public actor StateStore {
    /// The thread the actor runs on (its SQLite commits block), so no commit holds a thread of the
    /// cooperative pool; callers suspend meanwhile.
    private nonisolated let executor = SerialThreadExecutor(name: "synckernel.cloud-state")

    /// The actor's executor: a thread of its own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let database: SQLiteConnection<CloudError>
    private let commitHook: (@Sendable (String) throws -> Void)?

    /// Opens or creates the state file at `path`.
    public init(path: String) throws(CloudError) {
        try self.init(path: path, commitHook: nil)
    }

    /// Opens the state file with a hook called inside every transaction just before it commits,
    /// with the transaction's name; a hook that throws aborts the transaction (tests model a crash).
    package init(path: String, commitHook: (@Sendable (String) throws -> Void)?) throws(CloudError) {
        let database = try SQLiteConnection<CloudError>(path: path, busyTimeoutMilliseconds: 5_000)
        if try database.query("PRAGMA user_version").first?.first?.integer != Self.schemaVersion {
            try database.transaction(writing: true) { () throws(CloudError) in try Self.createSchema(in: database) }
        }
        self.database = database
        self.commitHook = commitHook
    }

    /// The schema this build writes (`PRAGMA user_version`); 0 is a file of an earlier build.
    private static let schemaVersion: Int64 = 2

    /// Creates the tables a new file needs, or adds what a file of an earlier build lacks, and
    /// gives the file its writer id; one transaction.
    private static func createSchema(in database: SQLiteConnection<CloudError>) throws(CloudError) {
        try database.execute("""
            CREATE TABLE IF NOT EXISTS sync_meta(
                id INTEGER PRIMARY KEY CHECK (id = 1), identity TEXT NOT NULL, hold TEXT,
                synced_at REAL, marker_dirty INTEGER NOT NULL)
            """)
        try database.execute("INSERT OR IGNORE INTO sync_meta(id, identity, hold, synced_at, marker_dirty) VALUES (1, '', NULL, NULL, 0)")
        try addColumn("writer_id TEXT", to: "sync_meta", in: database)
        try addColumn("lease_handle TEXT", to: "sync_meta", in: database)
        try database.run("UPDATE sync_meta SET writer_id = ? WHERE writer_id IS NULL", [.text(UUID().uuidString.lowercased())])
        try database.execute("CREATE TABLE IF NOT EXISTS sync_entry(path TEXT PRIMARY KEY, size INTEGER NOT NULL, hash TEXT)")
        try addColumn("tag TEXT", to: "sync_entry", in: database)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS sync_intent(
                id INTEGER PRIMARY KEY CHECK (id = 1), path TEXT NOT NULL, size INTEGER NOT NULL,
                hash TEXT, tag_before TEXT, existed_before INTEGER NOT NULL)
            """)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS restore_meta(
                id INTEGER PRIMARY KEY CHECK (id = 1), identity TEXT NOT NULL, marker_id TEXT,
                fingerprint TEXT NOT NULL, started_at REAL NOT NULL, completed_at REAL)
            """)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS restore_file(
                ordinal INTEGER PRIMARY KEY, remote_path TEXT NOT NULL, local_path TEXT NOT NULL,
                required INTEGER NOT NULL, grp TEXT, size INTEGER, phase TEXT NOT NULL,
                attempts INTEGER NOT NULL)
            """)
        try addColumn("sha256 TEXT", to: "restore_file", in: database)
        try addColumn("last_error TEXT", to: "restore_file", in: database)
        try addColumn("staging TEXT", to: "restore_meta", in: database)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS listing_meta(id INTEGER PRIMARY KEY CHECK (id = 1), identity TEXT NOT NULL, token TEXT NOT NULL)
            """)
        try database.execute("""
            CREATE TABLE IF NOT EXISTS listing_entry(path TEXT PRIMARY KEY, size INTEGER NOT NULL, tag TEXT, remote_id TEXT)
            """)
        try database.execute("PRAGMA user_version = \(schemaVersion)")
    }

    // MARK: Write hold

    /// The persisted write hold.
    public func hold() throws -> WriteHold {
        try read { database in
            let row = try database.query("SELECT hold FROM sync_meta WHERE id = 1").first
            return row?.first?.text.map { WriteHold.held(reason: $0) } ?? .none
        }
    }

    /// Persists `hold` without touching the sync entries.
    public func setHold(_ hold: WriteHold) throws {
        let value: SQLiteValue = switch hold {
        case .none: .null
        case .held(let reason): .text(reason)
        }
        try write("setHold") { database in
            try database.run("UPDATE sync_meta SET hold = ? WHERE id = 1", [value])
        }
    }

    // MARK: Writer lease

    /// This state file's writer id (random, given when the file was made): the token of its lease
    /// claims, so a run that was killed is recognised by the next run over the same state file.
    func writerID() throws -> String {
        guard let id = try read({ try $0.query("SELECT writer_id FROM sync_meta WHERE id = 1").first?.first?.text }) else {
            throw CloudError.localIO
        }
        return id
    }

    /// The backend handle of the lease the last run held, if it did not release it.
    func leaseHandle() throws -> String? {
        try read { try $0.query("SELECT lease_handle FROM sync_meta WHERE id = 1").first?.first?.text }
    }

    /// Records (or clears) the backend handle of the lease held.
    func setLeaseHandle(_ handle: String?) throws {
        try write("setLeaseHandle") { database in
            try database.run("UPDATE sync_meta SET lease_handle = ? WHERE id = 1", [handle.map { .text($0) } ?? .null])
        }
    }

    // MARK: Change checkpoint

    /// The persisted change checkpoint: the identity it belongs to, the storage's token and the
    /// listing as of that token; `nil` when none was saved.
    func loadCheckpoint() throws -> ListingCheckpoint? {
        try read { database in
            guard let meta = try database.query("SELECT identity, token FROM listing_meta WHERE id = 1").first,
                  let identity = meta[0].text, let token = meta[1].text else { return nil }
            var files: [ExactPath: RemoteFile] = [:]
            for row in try database.query("SELECT path, size, tag, remote_id FROM listing_entry") {
                guard let path = row[0].text, let size = row[1].integer else { throw CloudError.localIO }
                files[ExactPath(path)] = RemoteFile(path: path, size: size, remoteId: row[3].text, contentTag: row[2].text)
            }
            return ListingCheckpoint(identity: identity, token: token, files: files)
        }
    }

    /// Saves a checkpoint: the token and the records it covers, in one transaction. A complete
    /// listing replaces the stored one; otherwise `changed` and `deleted` are applied to it.
    /// A `nil` token clears the checkpoint.
    func saveCheckpoint(identity: String, _ changes: RemoteChanges) throws {
        try write("saveCheckpoint") { database in
            guard let token = changes.checkpoint else {
                try database.run("DELETE FROM listing_meta")
                try database.run("DELETE FROM listing_entry")
                return
            }
            if changes.isComplete { try database.run("DELETE FROM listing_entry") }
            for path in changes.deleted {
                try database.run("DELETE FROM listing_entry WHERE path = ?", [.text(path)])
            }
            for file in changes.changed {
                try database.run("INSERT OR REPLACE INTO listing_entry VALUES (?, ?, ?, ?)",
                                 [.text(file.path), .integer(file.size), file.contentTag.map { .text($0) } ?? .null,
                                  file.remoteId.map { .text($0) } ?? .null])
            }
            try database.run("INSERT OR REPLACE INTO listing_meta VALUES (1, ?, ?)", [.text(identity), .text(token)])
        }
    }

    // MARK: Sync state

    /// Loads the whole sync state.
    func loadSync() throws -> SyncState {
        try read { database in
            var state = SyncState()
            if let meta = try database.query("SELECT identity, synced_at, marker_dirty FROM sync_meta WHERE id = 1").first {
                state.identity = meta[0].text ?? ""
                state.syncedAt = meta[1].real.map(Date.init(timeIntervalSince1970:))
                state.markerDirty = meta[2].integer == 1
            }
            for row in try database.query("SELECT path, size, hash, tag FROM sync_entry") {
                guard let path = row[0].text, let size = row[1].integer else { throw CloudError.localIO }
                state.entries[ExactPath(path)] = StoredEntry(size: size, hash: row[2].text, tag: row[3].text)
            }
            if let row = try database.query("SELECT path, size, hash, tag_before, existed_before FROM sync_intent").first,
               let path = row[0].text, let size = row[1].integer {
                state.intent = PutIntent(path: path, size: size, hash: row[2].text, tagBefore: row[3].text,
                                         existedBefore: row[4].integer == 1)
            }
            return state
        }
    }

    /// Replaces the sync state (identity, entries, bookkeeping) in one transaction; keeps the hold.
    func replaceSync(_ state: SyncState) throws {
        try write("replaceSync") { database in
            try database.run("UPDATE sync_meta SET identity = ?, synced_at = ?, marker_dirty = ? WHERE id = 1",
                             [.text(state.identity), state.syncedAt.map { .real($0.timeIntervalSince1970) } ?? .null,
                              .integer(state.markerDirty ? 1 : 0)])
            try database.run("DELETE FROM sync_entry")
            for (path, entry) in state.entries {
                try Self.insert(entry, at: path.string, into: database)
            }
            try database.run("DELETE FROM sync_intent")
            if let intent = state.intent {
                try Self.insert(intent, into: database)
            }
        }
    }

    /// Records the put about to happen and marks the marker dirty.
    func beginPut(_ intent: PutIntent) throws {
        try write("beginPut") { database in
            try database.run("DELETE FROM sync_intent")
            try Self.insert(intent, into: database)
            try database.run("UPDATE sync_meta SET marker_dirty = 1 WHERE id = 1")
        }
    }

    /// Records a finished put: the entry, the cleared intent and, for the marker, a clean marker
    /// and the identity it establishes.
    func completePut(_ path: String, _ entry: StoredEntry, isMarker: Bool, identity: String?) throws {
        try write("completePut") { database in
            try Self.insert(entry, at: path, into: database)
            try database.run("DELETE FROM sync_intent")
            if isMarker {
                try database.run("UPDATE sync_meta SET marker_dirty = 0 WHERE id = 1")
            }
            if let identity {
                try database.run("UPDATE sync_meta SET identity = ? WHERE id = 1", [.text(identity)])
            }
        }
    }

    /// Forgets a put whose content is unknown (the file changed while it was sent): the entry
    /// goes, so the next run uploads it again, and the intent with it; the marker stays dirty.
    func abandonPut(_ path: String) throws {
        try write("abandonPut") { database in
            try database.run("DELETE FROM sync_entry WHERE path = ?", [.text(path)])
            try database.run("DELETE FROM sync_intent")
        }
    }

    /// Forgets a deleted entry.
    func removeEntry(_ path: String) throws {
        try write("removeEntry") { database in
            try database.run("DELETE FROM sync_entry WHERE path = ?", [.text(path)])
        }
    }

    /// Stamps a finished sync.
    func finishSync(at date: Date) throws {
        try write("finishSync") { database in
            try database.run("UPDATE sync_meta SET synced_at = ? WHERE id = 1", [.real(date.timeIntervalSince1970)])
            try database.run("DELETE FROM sync_intent")
        }
    }

    // MARK: Restore record

    /// Replaces the restore record with a new plan, every file pending.
    func saveRecord(_ plan: RestorePlan, startedAt: Date) throws {
        try write("saveRecord") { database in
            try database.run("DELETE FROM restore_meta")
            try database.run("DELETE FROM restore_file")
            try database.run("""
                INSERT INTO restore_meta(id, identity, marker_id, fingerprint, started_at, completed_at, staging)
                VALUES (1, ?, ?, ?, ?, NULL, ?)
                """, [.text(plan.source.identityKey), plan.source.markerRemoteId.map { .text($0) } ?? .null,
                      .text(plan.source.markerFingerprint), .real(startedAt.timeIntervalSince1970),
                      plan.stagingFolder.map { .text($0.path) } ?? .null])
            for (ordinal, file) in plan.files.enumerated() {
                try database.run("""
                    INSERT INTO restore_file(ordinal, remote_path, local_path, required, grp, size, phase, attempts, sha256)
                    VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?)
                    """, [.integer(Int64(ordinal)), .text(file.remotePath), .text(file.localURL.path),
                          .integer(file.required ? 1 : 0), file.group.map { .text($0) } ?? .null,
                          file.size.map { .integer($0) } ?? .null, file.sha256.map { .text($0) } ?? .null])
            }
        }
    }

    /// Loads the restore record, or `nil` when no plan was recorded.
    func loadRecord() throws -> RestoreRecord? {
        try read { database in
            guard let meta = try database.query(
                "SELECT identity, marker_id, fingerprint, started_at, completed_at, staging FROM restore_meta").first,
                let identity = meta[0].text, let fingerprint = meta[2].text, let started = meta[3].real
            else { return nil }
            let rows = try database.query("""
                SELECT ordinal, remote_path, local_path, required, grp, size, phase, attempts, sha256, last_error
                FROM restore_file ORDER BY ordinal
                """)
            let files = try rows.map { row in
                guard let ordinal = row[0].integer, let remote = row[1].text, let local = row[2].text,
                      let phase = row[6].text.flatMap(RestorePhase.init(rawValue:)), let attempts = row[7].integer
                else { throw CloudError.localIO }
                let file = RestoreFile(remotePath: remote, localURL: URL(fileURLWithPath: local),
                                       required: row[3].integer == 1, group: row[4].text, size: row[5].integer,
                                       sha256: row[8].text)
                return RecordedFile(ordinal: Int(ordinal), file: file, phase: phase, attempts: Int(attempts),
                                    lastError: row[9].text)
            }
            return RestoreRecord(source: SourceRef(identityKey: identity, markerRemoteId: meta[1].text,
                                                   markerFingerprint: fingerprint),
                                 startedAt: Date(timeIntervalSince1970: started),
                                 completedAt: meta[4].real.map(Date.init(timeIntervalSince1970:)),
                                 files: files, stagingFolder: meta[5].text.map { URL(fileURLWithPath: $0) })
        }
    }

    /// Moves files to `phase` and adds `attemptsDelta` to their attempts, in one transaction; a
    /// failure (`attemptsDelta > 0`) records `failure` as the last error.
    func updateFiles(_ ordinals: [Int], phase: RestorePhase, attemptsDelta: Int = 0, failure: String? = nil) throws {
        try write("updateFiles") { database in
            for ordinal in ordinals {
                try database.run("""
                    UPDATE restore_file SET phase = ?, attempts = attempts + ?,
                        last_error = CASE WHEN ? > 0 THEN ? ELSE last_error END
                    WHERE ordinal = ?
                    """, [.text(phase.rawValue), .integer(Int64(attemptsDelta)), .integer(Int64(attemptsDelta)),
                          failure.map { .text($0) } ?? .null, .integer(Int64(ordinal))])
            }
        }
    }

    /// Clears every file's attempts.
    func resetAttempts() throws {
        try write("resetAttempts") { database in
            try database.run("UPDATE restore_file SET attempts = 0")
        }
    }

    /// Stamps the restore as completed.
    func completeRecord(at date: Date) throws {
        try write("completeRecord") { database in
            try database.run("UPDATE restore_meta SET completed_at = ?", [.real(date.timeIntervalSince1970)])
        }
    }

    // MARK: Plumbing

    /// The connection's journal mode and synchronous level, as SQLite reports them.
    package func durability() throws -> (journalMode: String, synchronous: Int64) {
        let mode = try database.query("PRAGMA journal_mode").first?.first?.text ?? ""
        let level = try database.query("PRAGMA synchronous").first?.first?.integer ?? -1
        return (mode, level)
    }

    private static func insert(_ entry: StoredEntry, at path: String, into database: SQLiteConnection<CloudError>) throws {
        try database.run("INSERT OR REPLACE INTO sync_entry(path, size, hash, tag) VALUES (?, ?, ?, ?)",
                         [.text(path), .integer(entry.size), entry.hash.map { .text($0) } ?? .null,
                          entry.tag.map { .text($0) } ?? .null])
    }

    /// Adds `column` (a name and a type) to `table` when a state file written by an older build lacks it.
    private static func addColumn(_ column: String, to table: String,
                                  in database: SQLiteConnection<CloudError>) throws(CloudError) {
        let name = column.prefix { $0 != " " }
        let existing = try database.query("PRAGMA table_info(\(table))").compactMap { $0[1].text }
        if !existing.contains(String(name)) {
            try database.execute("ALTER TABLE \(table) ADD COLUMN \(column)")
        }
    }

    private static func insert(_ intent: PutIntent, into database: SQLiteConnection<CloudError>) throws {
        try database.run("INSERT INTO sync_intent VALUES (1, ?, ?, ?, ?, ?)",
                         [.text(intent.path), .integer(intent.size), intent.hash.map { .text($0) } ?? .null,
                          intent.tagBefore.map { .text($0) } ?? .null, .integer(intent.existedBefore ? 1 : 0)])
    }

    private func read<Result>(_ body: (SQLiteConnection<CloudError>) throws -> Result) throws -> Result {
        try database.transaction(writing: false) { try body(database) }
    }

    private func write(_ name: String, _ body: (SQLiteConnection<CloudError>) throws -> Void) throws {
        try database.transaction(writing: true) {
            try body(database)
            try commitHook?(name)
        }
    }
}
