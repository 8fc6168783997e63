import SQLiteStore
import SyncKernel

/// The seen set of frame ids: refuses a frame id seen before, or a timestamp outside the
/// window, and keeps what it saw in a small SQLite file, so a restart forgets nothing.
///
/// Invariants: a frame id is admitted at most once per file (its row is committed,
/// `synchronous=FULL`, before `admit` returns `fresh`, so a crash or power loss after it cannot
/// let the frame in twice, and it stays until its timestamp has left the window); the file holds at most
/// `window.maxEntries` ids: ids whose timestamp left the window go first, then the oldest, and
/// the newest timestamp removed is kept as a floor that every later frame must be newer than
/// (so neither the bound nor a clock that goes back reopens a replay); a frame it cannot record is refused (`unavailable`),
/// never let through. The file is refused (`foreignDatabase`) unless it is empty or one this
/// type made. Not `Sendable`: one owner (the gate) uses it.
public final class ReplayGuard {
    /// What `admit` decided.
    package enum Admission: Sendable, Hashable {
        /// Never seen, inside the window: now recorded.
        case fresh
        /// Seen before.
        case replayed
        /// Outside the window or not newer than the floor.
        case outsideWindow
        /// The file could not record it.
        case unavailable
    }

    /// The file's SQLite application id ("SKRP").
    private static let applicationID: Int32 = 0x534b_5250

    /// The window and the bound.
    public let window: ReplayWindow
    private let connection: SQLiteConnection<SyncKernelError>
    /// Every frame with a timestamp at or below it is refused (ids that old were given up).
    package private(set) var floor: Int64
    /// Frame ids held.
    public private(set) var count: Int

    /// Opens (or creates) the seen set at `path`; `":memory:"` keeps one in memory only (it then
    /// does not survive its owner).
    public init(path: String, window: ReplayWindow = ReplayWindow()) throws(SyncKernelError) {
        guard window.pastMillis >= 0, window.futureMillis >= 0, window.maxEntries > 0 else {
            throw SyncKernelError(.limitExceeded, "a replay window is not negative and keeps at least one id")
        }
        let connection = try SQLiteConnection<SyncKernelError>(path: path)
        do throws(SyncKernelError) {
            let id = try connection.applicationID()
            if id == 0, try connection.tableNames().isEmpty {
                try connection.transaction { () throws(SyncKernelError) in
                    try connection.execute("CREATE TABLE seen(id BLOB PRIMARY KEY, at INTEGER NOT NULL) WITHOUT ROWID")
                    try connection.execute("CREATE INDEX seen_at ON seen(at)")
                    try connection.execute("CREATE TABLE floor(one INTEGER PRIMARY KEY CHECK (one = 1), at INTEGER NOT NULL)")
                    try connection.setApplicationID(Self.applicationID)
                }
            } else if id != Self.applicationID {
                throw SyncKernelError(.foreignDatabase, "not a replay guard file")
            }
            floor = try connection.statement("SELECT at FROM floor WHERE one = 1").first { $0.int64(0) } ?? Int64.min
            count = Int(try connection.statement("SELECT COUNT(*) FROM seen").first { $0.int64(0) } ?? 0)
        } catch {
            connection.close()
            throw error
        }
        self.window = window
        self.connection = connection
    }

    deinit {
        connection.close()
    }

    /// Decides about the frame `frameID` stamped `timestamp`, at `now` (both milliseconds since
    /// 1970), and records it when it is fresh.
    package func admit(frameID: [UInt8], timestamp: Int64, now: Int64) -> Admission {
        guard window.contains(timestamp, at: now), timestamp > floor else { return .outsideWindow }
        do throws(SyncKernelError) {
            if try connection.statement("SELECT 1 FROM seen WHERE id = ?").bind(1, frameID).first({ _ in true }) != nil {
                return .replayed
            }
            let pruned = try connection.transaction { () throws(SyncKernelError) -> Bool in
                try connection.statement("INSERT INTO seen(id, at) VALUES (?, ?)").bind(1, frameID).bind(2, timestamp).run()
                guard count + 1 > window.maxEntries else { return false }
                try prune(oldest: window.oldest(at: now))
                return true
            }
            if pruned {
                count = try held()
                floor = try storedFloor()
            } else {
                count += 1
            }
        } catch {
            if let held = try? held() { count = held }
            if let stored = try? storedFloor() { floor = stored }
            return .unavailable
        }
        return .fresh
    }

    /// Removes the ids whose timestamp is below `oldest` (they left the window); if still more
    /// than the bound, gives up the oldest down to seven eighths of it. The floor rises to the
    /// newest timestamp removed, so no removed id can pass again, even after this device's clock
    /// goes back.
    private func prune(oldest: Int64) throws(SyncKernelError) {
        var newestRemoved = try connection.statement("SELECT MAX(at) FROM seen WHERE at < ?").bind(1, oldest)
            .first { $0.isNull(0) ? nil : $0.int64(0) } ?? nil
        try connection.statement("DELETE FROM seen WHERE at < ?").bind(1, oldest).run()
        let held = try held()
        if held > window.maxEntries {
            let excess = held - window.maxEntries * 7 / 8
            if let cutoff = try connection.statement("SELECT at FROM seen ORDER BY at LIMIT 1 OFFSET ?")
                .bind(1, Int64(excess - 1)).first({ $0.int64(0) }) {
                try connection.statement("DELETE FROM seen WHERE at <= ?").bind(1, cutoff).run()
                newestRemoved = max(newestRemoved ?? cutoff, cutoff)
            }
        }
        guard let newestRemoved else { return }
        try connection.statement("INSERT INTO floor(one, at) VALUES (1, ?) ON CONFLICT(one) DO UPDATE SET at = max(at, excluded.at)")
            .bind(1, newestRemoved).run()
    }

    /// The number of ids in the file.
    private func held() throws(SyncKernelError) -> Int {
        Int(try connection.statement("SELECT COUNT(*) FROM seen").first { $0.int64(0) } ?? 0)
    }

    /// The floor in the file.
    private func storedFloor() throws(SyncKernelError) -> Int64 {
        try connection.statement("SELECT at FROM floor WHERE one = 1").first { $0.int64(0) } ?? Int64.min
    }
}
