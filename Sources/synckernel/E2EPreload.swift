import Foundation
import SyncEnvelope
import SyncKernel

/// The two synced stores every point of one (N, row size) of `synckernel bench-e2e` starts from,
/// filled the way devices fill theirs, through `synckernel device` processes and `bench-rows`:
///
/// 1. device a alone inserts N/2 + N/100 notebook rows (stream 1), edits N/20 of them and
///    deletes N/100;
/// 2. its store is copied to device b (a copy: b's first write takes a fresh epoch), which
///    inserts N/2 + N/200 rows of its own (stream 2), edits N/20 of a's rows and N/40 of its own
///    and deletes N/200 of its own;
/// 3. b's store is copied back to a; a alone, then b alone, edit the same max(1, N/1000) rows of
///    stream 2 with different bodies (concurrent edits), then both run and meet: the sync keeps
///    both versions of each (open conflicts) and ends with equal roots; both stop.
///
/// Invariants: both stores hold N live notebook rows of exactly `rowBytes` encoded bytes and
/// equal roots when `make` returns (else it throws); `items` is the notebook's structure items
/// (key to item: the leaf, or the conflict item) read from store a after the devices stopped.
struct E2EPreload {
    /// The stream of the rows device a preloads.
    static let streamA: UInt64 = 1
    /// The stream of the rows device b preloads.
    static let streamB: UInt64 = 2

    /// The folder holding the account and both stores.
    let directory: String
    /// The account directory (devices a and b).
    let account: String
    /// The rows preloaded.
    let rows: Int
    /// The encoded size of every row.
    let rowBytes: Int
    /// The notebook's items in both stores, by key.
    let items: [[UInt8]: [UInt8]]
    /// Seconds the whole preload took.
    let seconds: Double

    /// Store a's path.
    var pathA: String { directory + "/a.sqlite" }
    /// Store b's path.
    var pathB: String { directory + "/b.sqlite" }

    /// Fills the stores in `directory` (created) over `relay`; `progress` gets a line per step.
    static func make(rows: Int, rowBytes: Int, seed: UInt64, directory: String, relay: E2ERelay,
                     progress: (String) -> Void) async throws -> E2EPreload {
        let started = ContinuousClock.now
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let account = AccountDirectory(path: directory + "/account")
        _ = try account.create()
        for name in ["a", "b"] { _ = try account.addDevice(name: name, expiresAt: Int64(Date().timeIntervalSince1970) + 30 * 86_400) }
        let preload = E2EPreload(directory: directory, account: account.path, rows: rows, rowBytes: rowBytes, items: [:], seconds: 0)
        let conflicts = max(1, rows / 1_000)
        let line = { (operation: String, stream: UInt64, first: Int, count: Int, variant: UInt64) -> String? in
            count > 0 ? "bench-rows \(operation) \(seed) \(stream) \(first) \(count) \(rowBytes) \(variant)" : nil
        }
        progress("preload: device a inserts \(rows / 2 + rows / 100) rows, edits \(rows / 20), deletes \(rows / 100)")
        try await preload.alone("a", relay: relay, [
            line("insert", streamA, 0, rows / 2 + rows / 100, 0), line("edit", streamA, 0, rows / 20, 1),
            line("delete", streamA, rows / 20, rows / 100, 0),
        ].compactMap { $0 })
        try copyStore(preload.pathA, to: preload.pathB)
        progress("preload: device b (a copy of a's store) inserts \(rows - rows / 2 + rows / 200) rows, edits \(rows / 20 + rows / 40), "
                 + "deletes \(rows / 200)")
        try await preload.alone("b", relay: relay, [
            line("insert", streamB, 0, rows - rows / 2 + rows / 200, 0), line("edit", streamA, rows / 10, rows / 20, 2),
            line("edit", streamB, 0, rows / 40, 2), line("delete", streamB, rows / 40, rows / 200, 0),
        ].compactMap { $0 })
        try copyStore(preload.pathB, to: preload.pathA)
        progress("preload: a and b each edit the same \(conflicts) rows apart, then meet (conflicts)")
        try await preload.alone("a", relay: relay, [line("edit", streamB, rows / 10, conflicts, 4)].compactMap { $0 })
        let b = try await E2EDevice.launch("b", account: preload.account, db: preload.pathB, relay: relay.url)
        do {
            _ = try await b.command("bench-rows edit \(seed) \(streamB) \(rows / 10) \(conflicts) \(rowBytes) 3", answer: "bench_rows",
                                   timeout: .seconds(3_600))
            let a = try await E2EDevice.launch("a", account: preload.account, db: preload.pathA, relay: relay.url)
            let met = try await E2ERun.waitForEqualRoots(a, b, timeout: .seconds(1_800))
            await a.quit()
            guard let met else { throw E2EError("the preloaded stores did not meet within 1,800 s") }
            progress("preload: met with \(met.0.notebookRows) notebook rows and \(met.0.notebookConflicts) open conflicts on each side")
        } catch {
            await b.quit()
            throw error
        }
        await b.quit()
        let reader = try StoreReader(path: preload.pathA)
        defer { reader.close() }
        var items: [[UInt8]: [UInt8]] = [:]
        for stored in try reader.keys(namespace: "notebook") {
            if let item = stored.item { items[stored.key] = item }
        }
        guard items.count >= rows else { throw E2EError("the preloaded store holds \(items.count) items, fewer than \(rows)") }
        return E2EPreload(directory: directory, account: account.path, rows: rows, rowBytes: rowBytes, items: items,
                          seconds: started.duration(to: .now).seconds)
    }

    /// Runs device `name` alone on its store: each command in turn, then `quit`.
    private func alone(_ name: String, relay: E2ERelay, _ commands: [String]) async throws {
        let device = try await E2EDevice.launch(name, account: account, db: directory + "/\(name).sqlite", relay: relay.url)
        do {
            for command in commands { _ = try await device.command(command, answer: "bench_rows", timeout: .seconds(3_600)) }
        } catch {
            await device.quit()
            throw error
        }
        await device.quit()
    }

    /// Copies the store at `source` (stopped: its database and write-ahead log) over `target`,
    /// removing what `target` had (its log, shared memory and lease, so it opens as a copy).
    static func copyStore(_ source: String, to target: String) throws {
        let manager = FileManager.default
        for suffix in ["", "-wal", "-shm", "-journal", "-lease"] where manager.fileExists(atPath: target + suffix) {
            try manager.removeItem(atPath: target + suffix)
        }
        for suffix in ["", "-wal"] where manager.fileExists(atPath: source + suffix) {
            try manager.copyItem(atPath: source + suffix, toPath: target + suffix)
        }
    }
}
