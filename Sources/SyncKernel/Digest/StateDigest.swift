/// The "are we in sync?" advertisement: one Merkle root per registered namespace.
///
/// Layout: a layout byte (`1`), the 8-byte `SchemaFingerprint` of the sender's namespace set,
/// then one 32-byte root per namespace in name order. Invariants: two devices holding the same
/// content under the same schema encode byte-identical digests; a digest from another schema is
/// refused at decoding with `schemaMismatch`, never compared root by root.
public struct StateDigest: Sendable, Hashable {
    /// The layout byte this build writes and accepts.
    public static let layoutVersion: UInt8 = 1

    /// The schema the roots were computed under.
    public let schema: SchemaFingerprint
    /// Namespace names, in the fixed (name) order.
    public let namespaces: [String]
    /// One root per namespace, parallel to `namespaces`.
    public let roots: [[UInt8]]

    /// Creates a digest; `namespaces` must be in name order and parallel to `roots`.
    public init(schema: SchemaFingerprint, namespaces: [String], roots: [[UInt8]]) {
        precondition(namespaces.count == roots.count && roots.allSatisfy { $0.count == 32 })
        self.schema = schema
        self.namespaces = namespaces
        self.roots = roots
    }

    /// The fixed-size wire form: 9 + 32 × namespace-count bytes.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = [StateDigest.layoutVersion]
        out.reserveCapacity(9 + 32 * roots.count)
        for shift in stride(from: 56, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: schema.value >> UInt64(shift)))
        }
        for root in roots { out.append(contentsOf: root) }
        return out
    }

    /// Decodes a peer's digest against the local schema and namespace list.
    ///
    /// Throws `unsupportedLayout` for another layout byte, `schemaMismatch` for another schema
    /// fingerprint (the peer runs a different namespace set or leaf encoding), and
    /// `malformedDigest` for a wrong length.
    public init(decoding bytes: [UInt8], expecting schema: SchemaFingerprint, namespaces: [String]) throws(SyncKernelError) {
        guard bytes.count >= 9 else { throw SyncKernelError(.malformedDigest, "too short") }
        guard bytes[0] == StateDigest.layoutVersion else { throw SyncKernelError(.unsupportedLayout) }
        let remote = SchemaFingerprint(value: bytes[1..<9].reduce(0) { $0 << 8 | UInt64($1) })
        guard remote == schema else { throw SyncKernelError(.schemaMismatch, "peer schema \(remote)") }
        guard bytes.count == 9 + 32 * namespaces.count else { throw SyncKernelError(.malformedDigest, "wrong length") }
        self.schema = schema
        self.namespaces = namespaces
        roots = namespaces.indices.map { Array(bytes[(9 + 32 * $0)..<(41 + 32 * $0)]) }
    }

    /// The schema fingerprint a digest claims, read without validating the rest.
    public static func claimedSchema(of bytes: [UInt8]) -> SchemaFingerprint? {
        guard bytes.count >= 9, bytes[0] == layoutVersion else { return nil }
        return SchemaFingerprint(value: bytes[1..<9].reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// The namespaces whose roots differ from `other`'s, in name order.
    public func divergentNamespaces(from other: StateDigest) -> [String] {
        guard other.namespaces == namespaces else { return namespaces }
        return namespaces.indices.filter { roots[$0] != other.roots[$0] }.map { namespaces[$0] }
    }
}
