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
    /// Of those, digests that only confirmed the roots match.
    public let confirmFrames: Int
    /// One-way trips of detection and transfer (frames of one depth travel together; the
    /// confirming digest not counted).
    public let transferTrips: Int
    /// Frames sent, by kind.
    public let frameKinds: [String: Int]
    /// Thread CPU milliseconds of detection (digests, sketch sizing and decoding, trie
    /// comparisons, spec answers) on A and B.
    public let detectMilliseconds: [Double]
    /// Thread CPU milliseconds of reading the rows to ship on A and B (the spec's answers count
    /// as detection: they read whole buckets).
    public let transferMilliseconds: [Double]
    /// Thread CPU milliseconds of merging responses on A and B.
    public let applyMilliseconds: [Double]
    /// Wall seconds of each store's load of `rows` rows in one transaction (A, then B).
    public let loadSeconds: [Double]
    /// Microseconds per loaded row spent keeping the persisted structure current (moving items
    /// in the set hash, sketch and buckets, and writing the changed parts; the mean of both loads).
    public let writeOverheadMicroseconds: Double
    /// The whole kernel save path per loaded row, microseconds (the mean over both loads).
    public let kernelWriteMicroseconds: Double
    /// The same rows written into a plain SQLite table, microseconds per row.
    public let sqliteWriteMicroseconds: Double
    /// Payload bytes of A's persisted structure (set hash, non-zero symbols, non-empty buckets).
    public let structureBytes: Int
    /// Payload bytes of the leaf hashes stored beside A's rows (a 32-byte blob per row).
    public let leafColumnBytes: Int
    /// Items (synced rows) in A's namespace at the end.
    public let items: Int
    /// Peak resident set of the process so far, in bytes.
    public let peakResidentBytes: Int
    /// Wall seconds to open both stores after the load (each open reads its persisted structure;
    /// no row is read).
    public let openSeconds: Double
    /// Wall seconds of the exchange.
    public let reconcileSeconds: Double

    /// Detection bytes: everything on the wire that is not a shipped row.
    public var detectionBytes: Int { totalBytes - rowBytesShipped }

    /// Round trips of detection and transfer: half the one-way trips, rounded up.
    public var roundTrips: Int { (transferTrips + 1) / 2 }

    /// The structure's stored bytes per 1,000 items.
    public var structureBytesPerThousand: Double { Double(structureBytes) * 1000 / Double(max(items, 1)) }

    /// `totalBytes / rowBytes`, or nil when nothing differed.
    public var overhead: Double? { rowBytes > 0 ? Double(totalBytes) / Double(rowBytes) : nil }

    /// Mean load seconds of one store.
    public var meanLoadSeconds: Double { loadSeconds.reduce(0, +) / Double(max(loadSeconds.count, 1)) }

    /// The keys and values of the JSON object.
    public var fields: [String: Any] {
        var object: [String: Any] = [
            "rows": config.rows, "diff": config.differences, "mode": config.mode.rawValue, "seed": config.seed,
            "sides": config.oneSided ? "one" : "both", "wide": config.wide,
            "row_bytes_target": config.rowBytes, "differing_rows": differingRows, "converged": converged,
            "bytes_total": totalBytes, "bytes_rows": rowBytesShipped, "bytes_detection": detectionBytes,
            "row_bytes": rowBytes, "round_trips": roundTrips, "frames": frames, "confirm_frames": confirmFrames,
            "frame_kinds": frameKinds,
            "detect_cpu_ms": ["a": detectMilliseconds[0], "b": detectMilliseconds[1]],
            "transfer_cpu_ms": ["a": transferMilliseconds[0], "b": transferMilliseconds[1]],
            "apply_cpu_ms": ["a": applyMilliseconds[0], "b": applyMilliseconds[1]],
            "write_overhead_us": writeOverheadMicroseconds, "kernel_write_us": kernelWriteMicroseconds,
            "sqlite_write_us": sqliteWriteMicroseconds, "structure_bytes": structureBytes,
            "structure_bytes_per_1000_rows": structureBytesPerThousand, "leaf_column_bytes": leafColumnBytes,
            "peak_rss_mb": Double(peakResidentBytes) / 1_048_576,
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
        let mode = config.mode == .spec ? "spec (Merkle digests, whole mismatching buckets)"
            : "fast (set-hash digests, a sketch sized to the expected difference, trie fallback)"
        let lines = [
            "bench: \(config.rows) rows of ~\(config.rowBytes) bytes, \(config.differences) differences "
                + "(\(differingRows) rows differ), mode \(mode), seed \(config.seed)",
            "converged: " + (converged ? "yes, both roots match" : "NO" + (refusal.map { ": \($0)" } ?? "")),
            "wire: \(totalBytes) bytes (detection \(detectionBytes), shipped rows \(rowBytesShipped)); "
                + "frames \(frames) (\(frameKinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))), "
                + "round trips \(roundTrips) for detection and transfer, then \(confirmFrames) confirming digest",
            "floor: the differing rows once, \(rowBytes) bytes" + (overhead.map { String(format: "; bytes on the wire / floor = %.2f", $0) } ?? ""),
            String(format: "detection CPU: A %.2f ms, B %.2f ms; reading rows to ship: A %.2f ms, B %.2f ms; apply CPU: A %.2f ms, B %.2f ms; exchange wall %.3f s",
                   detectMilliseconds[0], detectMilliseconds[1], transferMilliseconds[0], transferMilliseconds[1],
                   applyMilliseconds[0], applyMilliseconds[1], reconcileSeconds),
            String(format: "load: %d rows in one transaction: A %.3f s, B %.3f s (kernel save path %.2f us/row; "
                   + "plain SQLite insert of the same rows %.2f us/row)",
                   config.rows, loadSeconds[0], loadSeconds[1], kernelWriteMicroseconds, sqliteWriteMicroseconds),
            String(format: "per-write overhead of the structure: %.2f us/row (set hash, sketch, buckets, changed parts written)",
                   writeOverheadMicroseconds),
            String(format: "structure: %d bytes persisted for %d rows (%.1f bytes per 1,000 rows); leaf hashes beside the rows %d bytes",
                   structureBytes, items, structureBytesPerThousand, leafColumnBytes),
            String(format: "open after load: %.3f s for both stores (each reads its persisted structure; no row read); peak RSS %.1f MB",
                   openSeconds, Double(peakResidentBytes) / 1_048_576),
        ]
        return lines.joined(separator: "\n")
    }
}
