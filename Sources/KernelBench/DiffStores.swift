import Foundation
import SyncKernel

/// Two store files for timing `synckernel diff` (`synckernel bench-diff`): one loaded the way
/// the benchmark loads a replica, and a copy of its file that later takes edits.
///
/// Invariants: A is loaded with `rows` rows of the benchmark's seeded source in one transaction
/// under the origin device, checkpointed and closed, then its file is copied to B, so until
/// `edit` the two files are byte-identical stores; `edit` changes only B, through `KernelStore`
/// (the write path that keeps B's persisted structure current), and leaves it checkpointed and
/// closed.
public struct DiffStores: Sendable {
    /// Store A's file.
    public let pathA: String
    /// Store B's file.
    public let pathB: String
    /// Rows loaded into A (and so copied into B).
    public let rows: Int
    /// Wall seconds of A's load transaction.
    public let loadSeconds: Double
    /// The rows' source.
    private let source: RowSource

    /// Loads `rows` rows of about `rowBytes` bytes (from `seed`) into `directory`/a.sqlite and
    /// copies the file to `directory`/b.sqlite.
    public static func load(rows: Int, seed: UInt64, rowBytes: Int, into directory: String) throws -> DiffStores {
        let source = RowSource(seed: seed, rowBytes: rowBytes)
        let (pathA, pathB) = (directory + "/a.sqlite", directory + "/b.sqlite")
        let store = try KernelStore(path: pathA, namespaces: NamespaceSet([BenchNamespace.self]))
        try store.configureDevice(try BenchDevices.device(LoadedStores.origin))
        let started = ContinuousClock.now
        try store.write(BenchNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<rows { try tx.save(source.row(.shared, index, stamp: RowSource.loadStamp)) }
        }
        let seconds = started.duration(to: .now).seconds
        try store.checkpoint()
        store.close()
        try FileManager.default.copyItem(atPath: pathA, toPath: pathB)
        return DiffStores(pathA: pathA, pathB: pathB, rows: rows, loadSeconds: seconds, source: source)
    }

    /// Edits `count` loaded rows (evenly spaced, a new payload and a later stamp each) in B, as
    /// device "b", in one transaction; returns their keys.
    public func edit(_ count: Int) throws -> [[UInt8]] {
        let store = try KernelStore(path: pathB, namespaces: NamespaceSet([BenchNamespace.self]))
        defer { store.close() }
        try store.configureDevice(try BenchDevices.device("b"))
        let positions = (0..<min(count, rows)).map { $0 * rows / max(1, min(count, rows)) }
        try store.write(BenchNamespace.self) { tx throws(SyncKernelError) in
            for index in positions { try tx.save(source.edited(index)) }
        }
        try store.checkpoint()
        return positions.map { source.row(.shared, $0, stamp: RowSource.loadStamp).id }
    }
}
