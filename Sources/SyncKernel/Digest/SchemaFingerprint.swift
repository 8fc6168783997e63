/// The wire version of a set of registered namespaces, derived rather than written by hand.
///
/// Invariant: any change to the namespace set, to what a namespace declares (its leaf layout,
/// key, merge rule, the role, shape, merge and leaf contribution of any field, its granularity or
/// `schemaVersion`), or to the kernel's frame format yields a different fingerprint, so two
/// builds that would hash, ship or merge rows differently can never mistake each other's frames.
public struct SchemaFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The version of the kernel's own frame and digest layout; part of every fingerprint.
    /// Version 2: a key that keeps concurrent versions of another content contributes its
    /// conflict item, not its leaf, to both digests, and shipped versions carry their writer; a build of version 1
    /// would count such a key as differing forever, so the two refuse each other's frames.
    public static let kernelFormatVersion: UInt64 = 2

    /// The 64-bit fingerprint value.
    public let value: UInt64

    /// Wraps a fingerprint value read from the wire.
    public init(value: UInt64) {
        self.value = value
    }

    /// Derives the fingerprint of a namespace set from each namespace's declaration description.
    package init(declarations: [[UInt8]]) {
        var writer = CanonicalWriter()
        writer.write(SchemaFingerprint.kernelFormatVersion)
        writer.writeArray(declarations.sorted { $0.lexicographicallyPrecedes($1) }) { $0.write(bytes: $1) }
        let hash = SHA256.hash(domain: Array("synckernel.schema".utf8), writer.bytes)
        value = hash.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    public var description: String {
        Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) })
    }
}
