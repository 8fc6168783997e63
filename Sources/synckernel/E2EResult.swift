import Foundation

/// What one point of `synckernel bench-e2e` measured, with the in-memory bench's and
/// negentropy's figures for the same point beside it.
///
/// Invariants: `relayBytes` and `relayMessages` are differences of the server's own totals
/// (`in_bytes`, `in_msgs` of `/varz`) from just before the differences were written (stayed up)
/// or the away device restarted, to just after both reported equal roots; the CPU figures are
/// `/proc/PID/stat` utime + stime over the same window (a restarted device: its whole new
/// process); a figure that could not be had is nil, never a made-up number.
struct E2EResult {
    /// The point.
    let point: E2EPoint
    /// Whether both devices reported equal roots within the bound.
    let converged: Bool
    /// Payload bytes published into the server over the window.
    let relayBytes: Int
    /// Messages published into the server over the window (chunks of a large envelope apart).
    let relayMessages: Int
    /// D x row bytes.
    let changedRowBytes: Int
    /// Seconds from the end of the writes (stayed up) or the restart to equal roots.
    let wallSeconds: Double
    /// Seconds the writes took (the `bench-rows` answers).
    let writeSeconds: Double
    /// CPU milliseconds of devices a and b over the window.
    let cpuMilliseconds: (a: Double, b: Double)
    /// Envelopes device b accepted (frames a to b) and device a accepted (b to a) over the window.
    let frames: (aToB: Int, bToA: Int)
    /// Rounds the two devices started over the window.
    let roundsStarted: Int
    /// Frames a and b sent over the window that another part of the same answer or push followed.
    let partsAhead: (a: Int, b: Int)
    /// `synckernel bench`'s bytes_total / row_bytes and round trips for the same N, D, row size and seed.
    let inMemory: (ratio: Double?, roundTrips: Int)?
    /// negentropy's figure for the same sets.
    let negentropy: NegentropyComparison.Figure?
    /// Why a figure is missing, if one is.
    let note: String?

    /// Bytes through the relay over the changed row bytes.
    var ratio: Double? { changedRowBytes > 0 && converged ? Double(relayBytes) / Double(changedRowBytes) : nil }
    /// negentropy's total (reconcile and fetch) over the changed row bytes.
    var negentropyRatio: Double? {
        negentropy.map { Double($0.totalBytes) / Double(max(changedRowBytes, 1)) }
    }
    /// Round trips as the frames show them: an exchange alternates, so each round trip is one
    /// frame each way and the count is the larger direction's, where the parts of one answer or
    /// push count once (they go out together: the parts sent ahead of a last one are left out).
    var roundTrips: Int { max(frames.aToB - partsAhead.a, frames.bToA - partsAhead.b) }

    /// The markdown table's header.
    static let tableHeader = """
        | N | row B | D | sides | restart | converged | relay bytes | msgs | bytes / changed row bytes | in-memory bench | negentropy + fetch | wall s | CPU ms a / b | frames a→b / b→a | round trips (e2e / in-memory / negentropy) |
        |---:|---:|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|
        """

    /// The point's row of the markdown table.
    var tableRow: String {
        let cells: [String] = [
            Self.count(point.rows), "\(point.rowBytes)", "\(point.differences)", point.sides.rawValue, point.restart.rawValue,
            converged ? "yes" : "no", "\(relayBytes)", "\(relayMessages)", Self.ratio(ratio), Self.ratio(inMemory?.ratio),
            Self.ratio(negentropyRatio), String(format: "%.2f", wallSeconds),
            String(format: "%.0f / %.0f", cpuMilliseconds.a, cpuMilliseconds.b), "\(frames.aToB) / \(frames.bToA)",
            "\(roundTrips) / " + (inMemory.map { "\($0.roundTrips)" } ?? "-") + " / " + (negentropy.map { "\($0.roundTrips)" } ?? "-"),
        ]
        return "| " + cells.joined(separator: " | ") + " |"
    }

    /// The CSV header.
    static let csvHeader = "rows,row_bytes,diff,sides,restart,converged,relay_bytes,relay_msgs,changed_row_bytes,ratio,wall_s,write_s,"
        + "cpu_ms_a,cpu_ms_b,frames_a_to_b,frames_b_to_a,round_trips,rounds_started,in_memory_ratio,in_memory_round_trips,"
        + "negentropy_bytes_a_to_b,negentropy_bytes_b_to_a,negentropy_fetch_bytes,negentropy_ratio,negentropy_round_trips,"
        + "negentropy_cpu_ms_a,negentropy_cpu_ms_b,note"

    /// The point's CSV line.
    var csvLine: String {
        let optional: (Double?) -> String = { $0.map { String(format: "%.4f", $0) } ?? "" }
        var cells = ["\(point.rows)", "\(point.rowBytes)", "\(point.differences)", point.sides.rawValue, point.restart.rawValue,
                     "\(converged)", "\(relayBytes)", "\(relayMessages)", "\(changedRowBytes)", optional(ratio),
                     String(format: "%.3f", wallSeconds), String(format: "%.3f", writeSeconds),
                     String(format: "%.1f", cpuMilliseconds.a), String(format: "%.1f", cpuMilliseconds.b), "\(frames.aToB)",
                     "\(frames.bToA)", "\(roundTrips)", "\(roundsStarted)", optional(inMemory?.ratio),
                     inMemory.map { "\($0.roundTrips)" } ?? ""]
        if let negentropy {
            cells += ["\(negentropy.bytesAToB)", "\(negentropy.bytesBToA)", "\(negentropy.fetchBytes)", optional(negentropyRatio),
                      "\(negentropy.roundTrips)", String(format: "%.1f", negentropy.cpuMilliseconds.a),
                      String(format: "%.1f", negentropy.cpuMilliseconds.b)]
        } else {
            cells += ["", "", "", "", "", "", ""]
        }
        cells.append("\"" + (note ?? "").replacingOccurrences(of: "\"", with: "'") + "\"")
        return cells.joined(separator: ",")
    }

    /// A row count as 1e5 style when it is a power of ten, else in full.
    private static func count(_ value: Int) -> String {
        var exponent = 0
        var rest = value
        while rest >= 10, rest % 10 == 0 {
            rest /= 10
            exponent += 1
        }
        return rest == 1 && exponent > 0 ? "1e\(exponent)" : "\(value)"
    }

    /// A ratio to two decimals, or a dash.
    private static func ratio(_ value: Double?) -> String {
        value.map { String(format: "%.2f", $0) } ?? "-"
    }
}
