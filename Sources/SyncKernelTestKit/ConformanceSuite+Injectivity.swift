import Foundation
import SyncKernel

extension ConformanceSuite {
    /// Distinct values of every hashed field give distinct leaves, and distinct rows never share
    /// a leaf: for each hashed field, rows that differ only in that field (edge values included:
    /// empty, absent, zero, negative, very long, equivalent Unicode forms) must hash apart unless
    /// the field's codec declares the two values one (`emptyIsAbsent`); across every row the
    /// check makes, one leaf must mean one key and one set of hashed values.
    public func checkLeafInjective() throws {
        var generator = generator(8)
        var seen: [[UInt8]: (key: [UInt8], values: [[UInt8]?], row: Row)] = [:]
        let entries = declared.hashedEntries
        func record(_ row: Row) throws {
            let leaf = Namespace.leaf(of: row).hash
            let values = entries.map { DeclaredFields<Subject>.item($0.field, row) }
            let key = Namespace.key(of: row)
            guard let earlier = seen[leaf] else {
                seen[leaf] = (key, values, row)
                return
            }
            guard earlier.key == key, earlier.values == values else {
                let index = zip(earlier.values, values).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                throw failure(.leafInjective, field: index.map { entries[$0].spec.name },
                              earlier.key == key
                                ? "two rows with different values of this hashed field share one leaf: the leaf loses what tells them apart (a lossy codec or leaf contribution), so siblings holding either believe they agree"
                                : "two rows with different keys share one leaf",
                              leaves: Harness.describe(earlier.row, row, labels: ("one row", "another row")))
            }
        }
        for _ in 0..<trials {
            let base = Subject.makeRow(&generator)
            try record(base)
            for entry in entries {
                for _ in 0..<8 { try record(entry.spec.mutate(base, &generator)) }
            }
        }
    }
}
