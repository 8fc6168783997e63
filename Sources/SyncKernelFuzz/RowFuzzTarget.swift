import SyncKernel

/// Every namespace's `decodeRow(bytes:)` as one fuzz entry: the first byte chooses the namespace
/// (modulo their count), the rest is the row encoding.
///
/// Checks: a row the namespace accepts encodes (`rowEncoding(of:)`) to bytes it accepts again,
/// and that second decode encodes to the same bytes (the encoding of a decoded row is stable).
enum RowFuzzTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        guard let first = bytes.first else { return .refused }
        let namespaces = FuzzNamespaces.all
        let namespace = namespaces[Int(first) % namespaces.count]
        return try check(namespace, Array(bytes.dropFirst()))
    }

    private static func check<N: SyncNamespace>(_ namespace: N.Type, _ bytes: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        guard let row = try? N.decodeRow(bytes: bytes) else { return .refused }
        let encoded = N.rowEncoding(of: row)
        let again: N.Row
        do {
            again = try N.decodeRow(bytes: encoded)
        } catch {
            throw FuzzViolation("row: \(N.name) refuses the encoding of a row it accepted (\(error.code))")
        }
        guard N.rowEncoding(of: again) == encoded else {
            throw FuzzViolation("row: \(N.name) encodes a decoded row differently the second time")
        }
        return .accepted
    }
}
