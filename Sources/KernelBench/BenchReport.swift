import Foundation

/// What one benchmark run measured.
///
/// Invariants: `converged` is true exactly when both stores ended with equal encoded digests
/// and no frame was refused; `totalBytes == rowBytesShipped + detectionBytes`; `rowBytes` is
/// the floor: the encoded size of every row whose leaf differed before the exchange, counted
/// once, as stored on A after it; timings are wall or thread-CPU time as each field says.
public struct BenchReport: Sendable {
    /// The configuration that ran.
    public let config: BenchConfig
    /// Keys whose leaves differed between the replicas before the exchange.
    public let differingRows: Int
    /// Whether both replicas ended with equal roots.
    public let converged: Bool
    /// Why a frame was refused, if one was (the run then did not converge).
    public let refusal: String?
    /// Encoded bytes of every frame, both ways.
    public let totalBytes: Int
    /// Encoded bytes of the shipped rows inside responses (rows with their vectors).
    public let rowBytesShipped: Int
    /// The floor: encoded row bytes of the differing rows, each once.
    public let rowBytes: Int
    /// Frames sent, both ways.
    public let frames: Int
    /// Thread CPU milliseconds of detection (digests, requests, answers, listing diffs) on A and B.
    public let detectMilliseconds: [Double]
    /// Thread CPU milliseconds of merging responses on A and B.
    public let applyMilliseconds: [Double]
    /// Wall seconds of each store's load of `rows` rows in one transaction (A, then B).
    public let loadSeconds: [Double]
    /// `KernelStore.commitLeaves` microseconds per loaded row: keeping the in-memory leaf index
    /// after the load commits (the mean over both loads; staging inside the transaction excluded).
    public let writeOverheadMicroseconds: Double
    /// The whole kernel save path per loaded row, microseconds (the mean over both loads).
    public let kernelWriteMicroseconds: Double
    /// The same rows written into a plain SQLite table, microseconds per row.
    public let sqliteWriteMicroseconds: Double
    /// Bytes of synchronisation structure persisted in the store file: today the leaf hash kept
    /// beside each row (32 bytes a row).
    public let structureBytes: Int
    /// Estimated heap bytes of A's in-memory `LeafIndex` at the end.
    public let structureMemoryBytes: Int
    /// Leaves in A's index at the end.
    public let leaves: Int
    /// Peak resident set of the process so far, in bytes.
    public let peakResidentBytes: Int
    /// Wall seconds to open both stores after the load (each open reads the stored leaves and
    /// rebuilds the in-memory index from them; no row is decoded).
    public let openSeconds: Double
    /// Wall seconds of the exchange.
    public let reconcileSeconds: Double

    /// Detection bytes: everything on the wire that is not a shipped row.
    public var detectionBytes: Int { totalBytes - rowBytesShipped }

    /// Round trips: every frame waits for the one before it, so half the frames, rounded up.
    public var roundTrips: Int { (frames + 1) / 2 }

    /// `totalBytes / rowBytes`, or nil when nothing differed.
    public var overhead: Double? { rowBytes > 0 ? Double(totalBytes) / Double(rowBytes) : nil }

    /// Mean load seconds of one store.
    public var meanLoadSeconds: Double { loadSeconds.reduce(0, +) / Double(max(loadSeconds.count, 1)) }

    /// The keys and values of the JSON object.
    public var fields: [String: Any] {
        var object: [String: Any] = [
            "rows": config.rows, "diff": config.differences, "mode": config.mode.rawValue, "seed": config.seed,
            "row_bytes_target": config.rowBytes, "differing_rows": differingRows, "converged": converged,
            "bytes_total": totalBytes, "bytes_rows": rowBytesShipped, "bytes_detection": detectionBytes,
            "row_bytes": rowBytes, "round_trips": roundTrips, "frames": frames,
            "detect_cpu_ms": ["a": detectMilliseconds[0], "b": detectMilliseconds[1]],
            "apply_cpu_ms": ["a": applyMilliseconds[0], "b": applyMilliseconds[1]],
            "write_overhead_us": writeOverheadMicroseconds, "kernel_write_us": kernelWriteMicroseconds,
            "sqlite_write_us": sqliteWriteMicroseconds, "structure_bytes": structureBytes,
            "structure_memory_bytes": structureMemoryBytes, "peak_rss_mb": Double(peakResidentBytes) / 1_048_576,
            "load_seconds": meanLoadSeconds, "load_seconds_each": loadSeconds, "open_seconds": openSeconds,
            "reconcile_seconds": reconcileSeconds,
        ]
        if let overhead { object["bytes_total_over_row_bytes"] = overhead }
        if let refusal { object["refusal"] = refusal }
        return object
    }

    /// One JSON object with at least `bytes_total`, `bytes_rows`, `bytes_detection`, `row_bytes`,
    /// `round_trips`, `frames`, `detect_cpu_ms`, `write_overhead_us`, `structure_bytes`,
    /// `peak_rss_mb`, `load_seconds`, `converged`, `rows`, `diff`, `mode` and `seed`.
    public func json() -> String {
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A human-readable summary.
    public func text() -> String {
        let mode = config.mode == .spec ? "spec (whole mismatching buckets)" : "fast (the kernel's current best: listings, then by key)"
        let lines = [
            "bench: \(config.rows) rows of ~\(config.rowBytes) bytes, \(config.differences) differences "
                + "(\(differingRows) rows differ), mode \(mode), seed \(config.seed)",
            "converged: " + (converged ? "yes, both roots match" : "NO" + (refusal.map { ": \($0)" } ?? "")),
            "wire: \(totalBytes) bytes (detection \(detectionBytes), shipped rows \(rowBytesShipped)); "
                + "frames \(frames), round trips \(roundTrips)",
            "floor: the differing rows once, \(rowBytes) bytes" + (overhead.map { String(format: "; bytes on the wire / floor = %.2f", $0) } ?? ""),
            String(format: "detection CPU: A %.2f ms, B %.2f ms; apply CPU: A %.2f ms, B %.2f ms; exchange wall %.3f s",
                   detectMilliseconds[0], detectMilliseconds[1], applyMilliseconds[0], applyMilliseconds[1], reconcileSeconds),
            String(format: "load: %d rows in one transaction: A %.3f s, B %.3f s (kernel save path %.2f us/row; "
                   + "plain SQLite insert of the same rows %.2f us/row)",
                   config.rows, loadSeconds[0], loadSeconds[1], kernelWriteMicroseconds, sqliteWriteMicroseconds),
            String(format: "per-write overhead of the leaf index: %.2f us/row (KernelStore.commitLeaves after the load commits)",
                   writeOverheadMicroseconds),
            String(format: "structure: %d bytes persisted (leaf hashes beside the rows); in-memory LeafIndex ~%.1f MB (%d leaves, estimated heap)",
                   structureBytes, Double(structureMemoryBytes) / 1_048_576, leaves),
            String(format: "open after load: %.3f s for both stores (each reads the stored leaves; no row decoded); peak RSS %.1f MB",
                   openSeconds, Double(peakResidentBytes) / 1_048_576),
        ]
        return lines.joined(separator: "\n")
    }
}
