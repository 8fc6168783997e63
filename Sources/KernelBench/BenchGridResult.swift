import Foundation

/// The grid's points, printed as a table, a CSV file or JSON.
///
/// Invariant: points keep the order they ran in (row counts ascending, then differences, then
/// modes side by side); a skipped point carries its note instead of numbers.
public struct BenchGridResult: Sendable {
    /// Every point, run or skipped.
    public let points: [BenchGridPoint]
    /// The bound the grid ran under, in seconds.
    public let boundSeconds: Double

    /// Whether every point that ran converged.
    public var allConverged: Bool {
        points.allSatisfy { $0.report?.converged ?? true }
    }

    /// The points table (markdown) and, below it, what each row count's load measured.
    public func table() -> String {
        var lines = [
            "| N | D | mode | bytes_total | bytes_total / row_bytes | round trips | detect CPU ms A / B | converged |",
            "|---:|---:|---|---:|---:|---:|---:|---|",
        ]
        var lastSkip: (rows: Int, note: String)?
        for point in points {
            guard let report = point.report else {
                let note = point.skipped ?? "skipped"
                if let lastSkip, lastSkip.rows == point.rows, lastSkip.note == note { continue }
                lastSkip = (point.rows, note)
                let sameNote = points.filter { $0.rows == point.rows && $0.skipped == note }
                let scope = sameNote.count == points.filter({ $0.rows == point.rows }).count
                    ? "all | both" : "\(point.differences) | \(point.mode.rawValue)"
                lines.append("| \(BenchGridResult.label(point.rows)) | \(scope) | \(note) | | | | |")
                continue
            }
            lastSkip = nil
            lines.append("| \(BenchGridResult.label(point.rows)) | \(point.differences) | \(point.mode.rawValue) | \(report.totalBytes) | "
                         + (report.overhead.map { String(format: "%.2f", $0) } ?? "-") + " | \(report.roundTrips) | "
                         + String(format: "%.1f / %.1f", report.detectMilliseconds[0], report.detectMilliseconds[1])
                         + " | " + (report.converged ? "yes" : "NO" + (report.refusal.map { ": \($0)" } ?? "")) + " |")
        }
        lines += [
            "",
            "| N | load s, store A / B (one transaction each) | kernel save us/row | structure upkeep us/row | plain SQLite us/row | open s, both stores | structure persisted (per 1,000 rows) | peak RSS MB |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        var seen: Set<Int> = []
        for point in points where seen.insert(point.rows).inserted {
            let ran = points.compactMap { $0.rows == point.rows ? $0.report : nil }
            guard let first = ran.first else {
                lines.append("| \(BenchGridResult.label(point.rows)) | not loaded | | | | | | |")
                continue
            }
            let open = ran.map(\.openSeconds).reduce(0, +) / Double(ran.count)
            let peak = ran.map(\.peakResidentBytes).max() ?? 0
            lines.append(String(format: "| %@ | %.2f / %.2f | %.2f | %.2f | %.2f | %.2f | %d B (%.0f B) | %.0f |",
                                BenchGridResult.label(point.rows), first.loadSeconds[0], first.loadSeconds[1],
                                first.kernelWriteMicroseconds, first.writeOverheadMicroseconds, first.sqliteWriteMicroseconds,
                                open, first.structureBytes, first.structureBytesPerThousand,
                                Double(peak) / 1_048_576))
        }
        return lines.joined(separator: "\n")
    }

    /// Every point as one CSV line under a header; skipped points have empty numbers and a note.
    public func csv() -> String {
        let header = ["rows", "diff", "mode", "converged", "bytes_total", "bytes_rows", "bytes_detection", "row_bytes",
                      "bytes_total_over_row_bytes", "round_trips", "frames", "detect_cpu_ms_a", "detect_cpu_ms_b",
                      "apply_cpu_ms_a", "apply_cpu_ms_b", "load_seconds_a", "load_seconds_b", "write_overhead_us",
                      "kernel_write_us", "sqlite_write_us", "structure_bytes", "structure_bytes_per_1000_rows", "peak_rss_mb",
                      "open_seconds", "reconcile_seconds", "note"]
        var lines = [header.joined(separator: ",")]
        for point in points {
            var cells = ["\(point.rows)", "\(point.differences)", point.mode.rawValue]
            if let report = point.report {
                cells += ["\(report.converged)", "\(report.totalBytes)", "\(report.rowBytesShipped)", "\(report.detectionBytes)",
                          "\(report.rowBytes)", report.overhead.map { String(format: "%.4f", $0) } ?? "",
                          "\(report.roundTrips)", "\(report.frames)"]
                cells += [report.detectMilliseconds[0], report.detectMilliseconds[1], report.applyMilliseconds[0],
                          report.applyMilliseconds[1], report.loadSeconds[0], report.loadSeconds[1],
                          report.writeOverheadMicroseconds, report.kernelWriteMicroseconds,
                          report.sqliteWriteMicroseconds].map { String(format: "%.4f", $0) }
                cells += ["\(report.structureBytes)", String(format: "%.1f", report.structureBytesPerThousand),
                          String(format: "%.1f", Double(report.peakResidentBytes) / 1_048_576),
                          String(format: "%.4f", report.openSeconds), String(format: "%.4f", report.reconcileSeconds),
                          BenchGridResult.quoted(report.refusal ?? "")]
            } else {
                cells += [String](repeating: "", count: header.count - 4) + [BenchGridResult.quoted(point.skipped ?? "")]
            }
            lines.append(cells.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One JSON object: the bound and every point (a run's report fields, or rows, diff, mode and `skipped`).
    public func json() -> String {
        let object: [String: Any] = [
            "bound_s": boundSeconds,
            "points": points.map { point -> [String: Any] in
                point.report?.fields ?? ["rows": point.rows, "diff": point.differences, "mode": point.mode.rawValue,
                                         "skipped": point.skipped ?? ""]
            },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A one-line progress summary of a finished point.
    static func line(_ report: BenchReport) -> String {
        String(format: "N=%d D=%d %@: %d bytes (%@), round trips %d, detect CPU A %.1f ms B %.1f ms, exchange %.2f s, %@",
               report.config.rows, report.config.differences, report.config.mode.rawValue, report.totalBytes,
               report.overhead.map { String(format: "%.2fx the floor", $0) } ?? "nothing differs",
               report.roundTrips, report.detectMilliseconds[0], report.detectMilliseconds[1], report.reconcileSeconds,
               report.converged ? "converged" : "NOT converged")
    }

    /// A row count as printed: powers of ten from 1e3 as `1e3`, anything else in digits.
    static func label(_ rows: Int) -> String {
        var power = 0
        var rest = rows
        while rest >= 10, rest % 10 == 0 {
            rest /= 10
            power += 1
        }
        return rest == 1 && power >= 3 ? "1e\(power)" : "\(rows)"
    }

    /// Seconds as printed in notes: three significant digits below 100 s, whole seconds above.
    static func seconds(_ value: Double) -> String {
        value < 100 ? String(format: "%.3g s", value) : String(format: "%.0f s", value)
    }

    /// A CSV cell: quoted, inner quotes doubled.
    private static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
