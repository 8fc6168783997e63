import Foundation

/// Collects the entries of one CBOR map so `CanonicalWriter.writeMap` can emit them in order.
///
/// Invariant: a key is added at most once (a repeated key is a programming error and traps).
public struct MapWriter: Sendable {
    private var entries: [(key: [UInt8], value: [UInt8])] = []

    /// Adds an entry with a text key whose value `body` writes.
    public mutating func entry(_ key: String, _ body: (inout CanonicalWriter) -> Void) {
        var keyWriter = CanonicalWriter(reservingCapacity: key.utf8.count + 2)
        keyWriter.write(key)
        entry(encodedKey: keyWriter.bytes, body)
    }

    /// Adds an entry with a byte-string key whose value `body` writes.
    public mutating func entry(bytesKey key: [UInt8], _ body: (inout CanonicalWriter) -> Void) {
        var keyWriter = CanonicalWriter(reservingCapacity: key.count + 2)
        keyWriter.write(bytes: key)
        entry(encodedKey: keyWriter.bytes, body)
    }

    /// Adds an entry whose key is already canonically encoded.
    package mutating func entry(encodedKey: [UInt8], _ body: (inout CanonicalWriter) -> Void) {
        var valueWriter = CanonicalWriter()
        body(&valueWriter)
        entries.append((encodedKey, valueWriter.bytes))
    }

    func sortedEntries() -> [(key: [UInt8], value: [UInt8])] {
        let sorted = entries.sorted { $0.key.lexicographicallyPrecedes($1.key) }
        for index in sorted.indices.dropFirst() {
            precondition(sorted[index - 1].key != sorted[index].key, "a CBOR map key was written twice")
        }
        return sorted
    }
}
