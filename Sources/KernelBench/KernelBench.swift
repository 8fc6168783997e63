import Foundation
import SyncKernel

/// `synckernel bench --rows N --diff D`: two replicas on SQLite files load the same N rows, make
/// D differences, and reconcile to equal roots by driving `KernelStore` directly.
///
/// The run: a temporary folder (removed at the end) gets two store files, each loaded with the
/// same N rows in one transaction under a common origin device, and a plain SQLite table of the
/// same rows for comparison; the stores reopen as devices A and B under the mode's response
/// policy; A and B each make their share of the differences in one transaction; a
/// `BenchExchange` reconciles them. Invariant: deterministic for a configuration, apart from the
/// timings.
public enum KernelBench {
    /// Runs one benchmark in a fresh temporary folder.
    public static func run(_ config: BenchConfig) throws -> BenchReport {
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let source = RowSource(seed: config.seed, rowBytes: config.rowBytes)
        let loaded = try LoadedStores.load(rows: config.rows, source: source, into: directory)
        return try run(config, on: loaded, at: (loaded.pathA, loaded.pathB))
    }

    /// Runs each of `configs` (one row count, seed and row size, the first's) on copies of one
    /// load, in a fresh temporary folder, calling `report` after each.
    public static func runSeries(_ configs: [BenchConfig], report: (BenchReport) -> Void) throws {
        guard let first = configs.first else { return }
        let directory = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let loaded = try LoadedStores.load(rows: first.rows, source: RowSource(seed: first.seed, rowBytes: first.rowBytes), into: directory)
        for (index, config) in configs.enumerated() {
            let folder = directory + "/point-\(index)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            report(try run(config, on: loaded, at: try loaded.copy(into: folder)))
        }
    }

    /// Runs one benchmark on loaded store files at `paths` (the loaded files themselves, or copies).
    static func run(_ config: BenchConfig, on loaded: LoadedStores, at paths: (a: String, b: String)) throws -> BenchReport {
        let source = RowSource(seed: config.seed, rowBytes: config.rowBytes)
        let opened = ContinuousClock.now
        let a = try open(paths.a, as: "a", entropy: .seeded(config.seed &* 2))
        let b = try open(paths.b, as: "b", entropy: .seeded(config.seed &* 2 &+ 1))
        let openSeconds = opened.duration(to: .now).seconds
        defer {
            a.close()
            b.close()
        }
        let plan = DifferencePlan(differences: config.differences, rows: config.rows, source: source, oneSided: config.oneSided)
        let exchange = BenchExchange(a, b, mode: config.mode, wide: config.wide)
        exchange.recordSynced()
        try a.write(BenchNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<plan.insertsOnA { try tx.save(source.row(.insertedOnA, index, stamp: RowSource.diffStamp)) }
            for index in plan.editsOnA { try tx.save(source.edited(index)) }
        }
        try b.write(BenchNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<plan.insertsOnB { try tx.save(source.row(.insertedOnB, index, stamp: RowSource.diffStamp)) }
            for index in plan.editsOnB { try tx.save(source.edited(index)) }
        }
        let differing = plan.differingKeys(source)

        let started = ContinuousClock.now
        let finished = exchange.run(roundLimit: config.roundLimit)
        let reconcileSeconds = started.duration(to: .now).seconds
        let converged = finished && exchange.refusal == nil && a.encodedStateDigest() == b.encodedStateDigest()

        var floor = 0
        for key in differing {
            var row = try a.row(BenchNamespace.self, key: key)
            if row == nil { row = try b.row(BenchNamespace.self, key: key) }
            floor += row.map { BenchNamespace.rowEncoding(of: $0).count } ?? 0
        }
        let perRow = 1e6 / Double(max(config.rows, 1))
        return BenchReport(
            config: config, differingRows: differing.count, converged: converged, refusal: exchange.refusal,
            totalBytes: exchange.totalBytes, rowBytesShipped: exchange.rowBytes, rowBytes: floor, frames: exchange.frames,
            confirmFrames: exchange.confirmFrames, transferTrips: exchange.transferTrips, frameKinds: exchange.kinds,
            detectMilliseconds: exchange.spend.map { Double($0.detectNanoseconds) / 1e6 },
            transferMilliseconds: exchange.spend.map { Double($0.transferNanoseconds) / 1e6 },
            applyMilliseconds: exchange.spend.map { Double($0.applyNanoseconds) / 1e6 },
            loadSeconds: loaded.loadSeconds,
            writeOverheadMicroseconds: loaded.upkeepSeconds.reduce(0, +) / 2 * perRow,
            kernelWriteMicroseconds: loaded.loadSeconds.reduce(0, +) / 2 * perRow,
            sqliteWriteMicroseconds: loaded.sqliteSeconds * perRow,
            structureBytes: try a.structureBytes(namespace: BenchNamespace.name),
            leafColumnBytes: 33 * Int(a.itemCounts().reduce(0, +)), items: Int(a.itemCounts().reduce(0, +)),
            peakResidentBytes: ThreadCPUClock.peakResidentBytes, openSeconds: openSeconds,
            reconcileSeconds: reconcileSeconds)
    }

    /// Opens a loaded store file as device `label`, its epoch nonces drawn from `entropy` (a
    /// stream of the bench's seed, one per replica): the epoch a copied store takes is then the
    /// same in every run, so its place in a frame's device table, and the bytes, do not change
    /// from run to run (a system-random nonce moves it, and the width of every reference to it,
    /// by chance).
    private static func open(_ path: String, as label: String, entropy: EntropySource) throws(SyncKernelError) -> KernelStore {
        let store = try KernelStore(path: path, namespaces: NamespaceSet([BenchNamespace.self]), entropy: entropy)
        try store.configureDevice(try BenchDevices.device(label))
        return store
    }

    /// A fresh folder under the system's temporary directory.
    static func makeTemporaryDirectory() throws -> String {
        let path = NSTemporaryDirectory() + "synckernel-bench-\(ProcessInfo.processInfo.processIdentifier)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }
}
