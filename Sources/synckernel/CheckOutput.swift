import Foundation
import SyncKernel

/// What `synckernel check` prints: the report as text for people or one JSON object.
///
/// Invariant: keys are printed in hexadecimal and never as text; rows' bytes are not printed.
struct CheckOutput {
    /// The store's path, as given.
    let path: String
    /// The verdict: healthy, damaged or unopenable.
    var status = "unopenable"
    /// The standard namespaces the store holds (those checked).
    var namespaces: [String] = []
    /// Row tables of namespaces that are not standard (not checked).
    var unknownNamespaces: [String] = []
    /// Rows the open itself quarantined.
    var quarantinedAtOpen = 0
    /// The last check's report.
    var report: IntegrityReport?
    /// What `--repair` changed.
    var repair: RepairOutcome?
    /// Why the store could not be opened or read.
    var error: String?

    /// An empty report for `path`.
    init(path: String) {
        self.path = path
    }

    /// A readable report.
    func text() -> String {
        var lines = ["store: \(path)"]
        if let error { lines.append("error: \(error)") }
        if !namespaces.isEmpty { lines.append("namespaces checked: \(namespaces.joined(separator: ", "))") }
        if !unknownNamespaces.isEmpty { lines.append("not checked (not a standard namespace): \(unknownNamespaces.joined(separator: ", "))") }
        if quarantinedAtOpen > 0 { lines.append("quarantined while opening: \(quarantinedAtOpen)") }
        if let repair {
            lines.append("repair: quarantined \(repair.quarantined.count) rows; rebuilt structures: "
                         + (repair.rebuiltStructures.isEmpty ? "none" : repair.rebuiltStructures.joined(separator: ", ")))
        }
        if let report {
            lines.append("rows and kept versions checked: \(report.rowsChecked)")
            lines.append("SQLite integrity: " + (report.sqliteProblems.isEmpty ? "ok" : "\(report.sqliteProblems.count) problems"))
            lines += report.sqliteProblems.map { "  \($0)" }
            lines.append("structures: " + (report.differingStructures.isEmpty ? "ok"
                                                                              : "differ from a rescan: \(report.differingStructures.joined(separator: ", "))"))
            lines.append("damaged rows: \(report.damagedRows.count)")
            lines += report.damagedRows.map { "  \($0.namespace) key \(Hex.encode($0.key)) \($0.reason)\($0.vector == nil ? "" : " (kept version)")" }
            lines.append("quarantined rows: \(report.quarantined.count)")
            lines += report.quarantined.map {
                "  #\($0.id) \($0.namespace) key \(Hex.encode($0.key)) \($0.reason) at \($0.site), \($0.quarantinedAt)"
            }
        }
        lines.append("result: \(status)")
        return lines.joined(separator: "\n")
    }

    /// One JSON object with sorted keys.
    func json() -> String {
        var object: [String: Any] = ["path": path, "status": status, "namespaces": namespaces,
                                     "unknown_namespaces": unknownNamespaces, "quarantined_at_open": quarantinedAtOpen]
        if let error { object["error"] = error }
        if let repair {
            object["repair"] = ["quarantined": repair.quarantined.count, "rebuilt_structures": repair.rebuiltStructures]
        }
        if let report {
            object["rows_checked"] = report.rowsChecked
            object["sqlite_problems"] = report.sqliteProblems
            object["differing_structures"] = report.differingStructures
            object["damaged_rows"] = report.damagedRows.map { damage -> [String: Any] in
                ["namespace": damage.namespace, "key": Hex.encode(damage.key), "reason": damage.reason.rawValue,
                 "kept_version": damage.vector != nil]
            }
            object["quarantined"] = report.quarantined.map { entry -> [String: Any] in
                ["id": entry.id, "namespace": entry.namespace, "key": Hex.encode(entry.key), "reason": entry.reason.rawValue,
                 "site": entry.site.rawValue, "quarantined_at": entry.quarantinedAt]
            }
        }
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
