/// The "are we in sync?" advertisement: one root per registered namespace.
///
/// Layout 1 (`merkle`) is the spec's: a layout byte, the 8-byte `SchemaFingerprint` of the
/// sender's namespace set, then one 32-byte `MerkleTree` root per namespace in name order, each
/// over the namespace's sorted leaves, which costs a scan of every leaf to produce. Layout 3
/// (`setHash`) is a layout byte then the first 16 bytes (`setHashRootBytes`) of the root of each
/// namespace's persisted `SetHash`, kept current by every write; it carries no fingerprint of its
/// own (the frame's schema field, checked before the digest is read, vouches for it) and is sent
/// only to a peer that announced it can read it. 128 bits keep an accidental match of different
/// sets at 2^-128, and only a device of the account (which may write anything anyway) could
/// search for a deliberate one. Layout 2, the full-root set-hash layout of the `sketch1` builds,
/// is retired: it decodes as `unsupportedLayout`.
/// Invariants: two devices holding the same content under the same schema encode byte-identical
/// digests of a layout; a digest from another schema is refused at decoding with
/// `schemaMismatch`, never compared root by root; digests of different layouts never compare
/// equal.
public struct StateDigest: Sendable, Hashable {
    /// How the roots are computed.
    public enum Layout: UInt8, Sendable, Hashable {
        /// The spec's Merkle roots over sorted leaves.
        case merkle = 1
        /// Roots of the persisted set hashes, cut to `setHashRootBytes`.
        case setHash = 3
    }

    /// The bytes of each root a `setHash` digest keeps.
    public static let setHashRootBytes = 16

    /// How the roots were computed.
    public let layout: Layout
    /// The schema the roots were computed under.
    public let schema: SchemaFingerprint
    /// Namespace names, in the fixed (name) order.
    public let namespaces: [String]
    /// One root per namespace, parallel to `namespaces`: 32 bytes (`merkle`) or
    /// `setHashRootBytes` (`setHash`).
    public let roots: [[UInt8]]

    /// Creates a digest; `namespaces` must be in name order and parallel to `roots`, each root 32
    /// bytes (a `setHash` digest keeps the first `setHashRootBytes` of each, and also takes roots
    /// already cut to that length, as a decoded one holds).
    public init(layout: Layout = .merkle, schema: SchemaFingerprint, namespaces: [String], roots: [[UInt8]]) {
        precondition(namespaces.count == roots.count
            && roots.allSatisfy { $0.count == 32 || (layout == .setHash && $0.count == StateDigest.setHashRootBytes) })
        self.layout = layout
        self.schema = schema
        self.namespaces = namespaces
        self.roots = layout == .setHash ? roots.map { Array($0.prefix(StateDigest.setHashRootBytes)) } : roots
    }

    /// The bytes of one root in `layout`.
    private static func rootBytes(_ layout: Layout) -> Int {
        layout == .merkle ? 32 : setHashRootBytes
    }

    /// The fixed-size wire form: 9 + 32 × namespace-count bytes (layout 1) or 1 + 16 ×
    /// namespace-count bytes (layout 3).
    public func encoded() -> [UInt8] {
        var out: [UInt8] = [layout.rawValue]
        out.reserveCapacity(9 + 32 * roots.count)
        if layout == .merkle {
            for shift in stride(from: 56, through: 0, by: -8) {
                out.append(UInt8(truncatingIfNeeded: schema.value >> UInt64(shift)))
            }
        }
        for root in roots { out.append(contentsOf: root) }
        return out
    }

    /// Decodes a peer's digest against the local schema and namespace list.
    ///
    /// Throws `unsupportedLayout` for a layout byte this build does not know, `schemaMismatch`
    /// for another schema fingerprint (the peer runs a different namespace set or leaf encoding),
    /// and `malformedDigest` for a wrong length.
    public init(decoding bytes: [UInt8], expecting schema: SchemaFingerprint, namespaces: [String]) throws(SyncKernelError) {
        guard let first = bytes.first else { throw SyncKernelError(.malformedDigest, "too short") }
        guard let layout = Layout(rawValue: first) else { throw SyncKernelError(.unsupportedLayout) }
        let header = layout == .merkle ? 9 : 1
        guard bytes.count >= header else { throw SyncKernelError(.malformedDigest, "too short") }
        if layout == .merkle {
            let remote = SchemaFingerprint(value: bytes[1..<9].reduce(0) { $0 << 8 | UInt64($1) })
            guard remote == schema else { throw SyncKernelError(.schemaMismatch, "peer schema \(remote)") }
        }
        let width = StateDigest.rootBytes(layout)
        guard bytes.count == header + width * namespaces.count else { throw SyncKernelError(.malformedDigest, "wrong length") }
        self.layout = layout
        self.schema = schema
        self.namespaces = namespaces
        roots = namespaces.indices.map { Array(bytes[(header + width * $0)..<(header + width + width * $0)]) }
    }

    /// The schema fingerprint a layout-1 digest claims, read without validating the rest (nil
    /// for layout 3, which names none).
    public static func claimedSchema(of bytes: [UInt8]) -> SchemaFingerprint? {
        guard bytes.count >= 9, Layout(rawValue: bytes[0]) == .merkle else { return nil }
        return SchemaFingerprint(value: bytes[1..<9].reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// The layout a digest's bytes claim, read without validating the rest.
    public static func claimedLayout(of bytes: [UInt8]) -> Layout? {
        bytes.first.flatMap(Layout.init(rawValue:))
    }

    /// A set-hash digest's bytes with the root of namespace `index` replaced by `root` (what a
    /// peer's `push` or `push_ack` says of one namespace), nil when `bytes` is not a set-hash
    /// digest of at least `index + 1` roots or `root` is not `setHashRootBytes` long.
    package static func replacingRoot(in bytes: [UInt8], at index: Int, with root: [UInt8]) -> [UInt8]? {
        let width = setHashRootBytes
        guard bytes.first == Layout.setHash.rawValue, (bytes.count - 1) % width == 0, index >= 0,
              index < (bytes.count - 1) / width, root.count == width else { return nil }
        var spliced = bytes
        spliced.replaceSubrange((1 + width * index)..<(1 + width * (index + 1)), with: root)
        return spliced
    }

    /// The namespaces whose roots differ from `other`'s, in name order (all of them when the
    /// layouts or namespace lists differ).
    public func divergentNamespaces(from other: StateDigest) -> [String] {
        guard other.namespaces == namespaces, other.layout == layout else { return namespaces }
        return namespaces.indices.filter { roots[$0] != other.roots[$0] }.map { namespaces[$0] }
    }
}
