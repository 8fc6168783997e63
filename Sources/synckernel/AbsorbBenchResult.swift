import Foundation
import SnapshotTransfer

/// One snapshot transfer the absorb benchmark measured: a sibling's export into a blob store and
/// a fresh store absorbing it.
///
/// Invariant: the step times are the sender's and the receiver's reports, unchanged; `totalSeconds`
/// is the sender's whole answer plus the receiver's whole absorb (wall time), the CPU seconds the
/// same two spans' process CPU time; `digestMatches` says whether the absorbed store's digest
/// equals the source's.
struct AbsorbBenchResult {
    let store: String
    let rows: Int
    let algorithm: String
    let sealedBytes: Int64
    let send: SnapshotSendReport
    let absorb: SnapshotAbsorbReport
    let senderPeakMebibytes: Double
    let receiverPeakMebibytes: Double
    /// CPU seconds (user and system) of the sender's answer and of the receiver's absorb.
    let senderCPUSeconds: Double
    let receiverCPUSeconds: Double
    let digestMatches: Bool

    var totalSeconds: Double { Self.seconds(send.totalTime) + Self.seconds(absorb.totalTime) }

    /// The steps, in order, with their seconds.
    var steps: [(String, Double)] {
        [("export", Self.seconds(send.exportTime)), ("seal", Self.seconds(send.sealTime)), ("upload", Self.seconds(send.uploadTime)),
         ("download", Self.seconds(absorb.downloadTime)), ("verify", Self.seconds(absorb.verifyTime)),
         ("import", Self.seconds(absorb.importTime))]
    }

    /// One JSON object.
    func json() -> String {
        var fields = ["\"store\": \"\(store)\"", "\"rows\": \(rows)", "\"algorithm\": \"\(algorithm)\"",
                      "\"sealed_bytes\": \(sealedBytes)"]
        fields += steps.map { "\"\($0.0)_s\": \(String(format: "%.3f", $0.1))" }
        fields += ["\"total_s\": \(String(format: "%.3f", totalSeconds))",
                   "\"sender_cpu_s\": \(String(format: "%.3f", senderCPUSeconds))",
                   "\"receiver_cpu_s\": \(String(format: "%.3f", receiverCPUSeconds))",
                   "\"sender_peak_rss_mb\": \(String(format: "%.1f", senderPeakMebibytes))",
                   "\"receiver_peak_rss_mb\": \(String(format: "%.1f", receiverPeakMebibytes))",
                   "\"rows_imported\": \(absorb.outcome.rowsImported)", "\"digest_matches\": \(digestMatches)"]
        return "{" + fields.joined(separator: ", ") + "}"
    }

    /// The table's header line.
    static let header = "store      rows      alg     sealed MB  export s  seal s  upload s  download s  verify s  import s"
        + "  total s  CPU s  sender MB  receiver MB  digest"

    /// One line of the table.
    func line() -> String {
        let cells = [pad(store, 10), pad("\(rows)", 9), pad(algorithm == "AES-256-GCM" ? "aes" : "xchacha", 7),
                     pad(String(format: "%.1f", Double(sealedBytes) / 1_048_576), 9, right: true)]
            + zip(steps, [8, 6, 8, 10, 8, 8]).map { pad(String(format: "%.2f", $0.0.1), $0.1, right: true) }
            + [pad(String(format: "%.2f", totalSeconds), 7, right: true),
               pad(String(format: "%.2f", senderCPUSeconds + receiverCPUSeconds), 5, right: true), pad(String(format: "%.0f", senderPeakMebibytes), 9, right: true),
               pad(String(format: "%.0f", receiverPeakMebibytes), 11, right: true), digestMatches ? "equal" : "DIFFERS"]
        return cells.joined(separator: "  ")
    }

    private func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let space = String(repeating: " ", count: max(0, width - text.count))
        return right ? space + text : text + space
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
