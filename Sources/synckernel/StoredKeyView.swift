import Foundation
import SyncKernel

/// How `inspect` and `diff` show what a store holds for one key: rows and vectors in CBOR
/// diagnostic notation, hashes, keys and device ids in hexadecimal.
///
/// Invariants: built from bytes as stored, so a damaged entry shows (its bytes in hex, marked
/// undecodable) rather than failing the command; text from a row is escaped by
/// `CBORValue.diagnostic`, never printed raw; a key is never printed as text.
struct StoredKeyView {
    /// The stored key.
    let stored: StoredKey

    /// `bytes` (a row or a vector) in diagnostic notation, or `undecodable h'..'` when it is not CBOR.
    static func diagnostic(_ bytes: [UInt8]) -> String {
        guard let value = try? CBORReader.decode(bytes) else { return "undecodable h'\(Hex.encode(bytes))'" }
        return value.diagnostic
    }

    /// The live versions kept beside the row (in conflict).
    var liveVersions: [VersionEntry] { stored.versions.filter { $0.row != nil } }

    /// The delete versions kept (tombstones).
    var tombstones: [VersionEntry] { stored.versions.filter { $0.row == nil } }

    /// Live versions in all: the visible row and those kept beside it.
    var liveCount: Int { (stored.row == nil ? 0 : 1) + liveVersions.count }

    /// The readable lines, indented by `indent`.
    func lines(indent: String = "") -> [String] {
        var lines: [String] = []
        if let row = stored.row {
            lines.append("\(indent)row: \(StoredKeyView.diagnostic(row))")
            lines.append("\(indent)leaf: \(stored.leaf.map(Hex.encode) ?? "none (device-derived)")")
            if let item = stored.item, item != stored.leaf { lines.append("\(indent)structure item (conflict): \(Hex.encode(item))") }
        } else {
            lines.append("\(indent)row: none")
        }
        if let vector = stored.vector {
            lines.append("\(indent)vector: \(StoredKeyView.diagnostic(vector))")
            lines.append("\(indent)content vector: "
                         + (stored.contentVector.isEmpty ? "the vector" : StoredKeyView.diagnostic(stored.contentVector)))
            lines.append("\(indent)RowClock stamp (synced_at): \(stored.syncedAt)")
            lines.append("\(indent)writer: \(stored.writer?.hex ?? "unknown")")
        } else if stored.row != nil {
            lines.append("\(indent)vector: none (a namespace that keeps no versions, or a device-derived row)")
        }
        if let changed = stored.changed { lines.append("\(indent)changed at counter: \(changed)") }
        lines.append("\(indent)live versions: \(liveCount)" + (liveCount > 1 ? " (in conflict)" : ""))
        for (index, version) in liveVersions.enumerated() {
            lines.append("\(indent)  kept version \(index + 1): vector \(StoredKeyView.diagnostic(version.vector)), writer "
                         + "\(version.writer?.hex ?? "unknown"), leaf \(version.leaf.map(Hex.encode) ?? "not stored")")
            lines.append("\(indent)    row: \(version.row.map(StoredKeyView.diagnostic) ?? "none")")
        }
        lines.append("\(indent)tombstones: \(tombstones.count)")
        for version in tombstones { lines.append("\(indent)  delete: vector \(StoredKeyView.diagnostic(version.vector))") }
        return lines
    }

    /// The JSON object of the key.
    func object() -> [String: Any] {
        var object: [String: Any] = [
            "key": Hex.encode(stored.key), "live_versions": liveCount, "in_conflict": liveCount > 1,
            "row": stored.row.map { ["diagnostic": StoredKeyView.diagnostic($0), "hex": Hex.encode($0)] as [String: Any] } ?? NSNull(),
            "leaf": stored.leaf.map(Hex.encode) ?? NSNull(), "item": stored.item.map(Hex.encode) ?? NSNull(),
            "changed": stored.changed.map { $0 as Any } ?? NSNull(),
        ]
        if let vector = stored.vector {
            object["row_clock"] = [
                "vector": StoredKeyView.diagnostic(vector),
                "content_vector": StoredKeyView.diagnostic(stored.contentVector.isEmpty ? vector : stored.contentVector),
                "synced_at": stored.syncedAt, "writer": stored.writer?.hex ?? NSNull(),
            ] as [String: Any]
        } else {
            object["row_clock"] = NSNull()
        }
        object["versions"] = liveVersions.map { version -> [String: Any] in
            ["vector": StoredKeyView.diagnostic(version.vector), "writer": version.writer?.hex ?? NSNull(),
             "leaf": version.leaf.map(Hex.encode) ?? NSNull(),
             "row": version.row.map { ["diagnostic": StoredKeyView.diagnostic($0), "hex": Hex.encode($0)] as [String: Any] } ?? NSNull()]
        }
        object["tombstones"] = tombstones.map { ["vector": StoredKeyView.diagnostic($0.vector)] }
        return object
    }
}
