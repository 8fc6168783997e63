/// The wire version of a set of registered namespaces, derived rather than written by hand.
///
/// Invariant: any change to the namespace set, to a namespace's leaf-schema version or
/// reconcile granularity, or to the kernel's frame format yields a different fingerprint, so two
/// builds that would hash or ship rows differently can never mistake each other's digests.
public struct SchemaFingerprint: Sendable, Hashable, CustomStringConvertible {
    /// The version of the kernel's own frame and digest layout; part of every fingerprint.
    public static let kernelFormatVersion: UInt64 = 1

    /// The 64-bit fingerprint value.
    public let value: UInt64

    /// Wraps a fingerprint value read from the wire.
    public init(value: UInt64) {
        self.value = value
    }

    /// Derives the fingerprint of namespaces given as (name, leaf-schema version, granularity tag).
    package init(namespaces: [(name: String, leafSchemaVersion: Int, granularity: String)]) {
        var writer = CanonicalWriter()
        writer.write(SchemaFingerprint.kernelFormatVersion)
        let sorted = namespaces.sorted { $0.name < $1.name }
        writer.writeArray(sorted) { writer, namespace in
            writer.writeArrayHeader(count: 3)
            writer.write(namespace.name)
            writer.write(namespace.leafSchemaVersion)
            writer.write(namespace.granularity)
        }
        let hash = SHA256.hash(domain: Array("synckernel.schema".utf8), writer.bytes)
        value = hash.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    public var description: String {
        Hex.encode((0..<8).map { UInt8(truncatingIfNeeded: value >> UInt64(56 - 8 * $0)) })
    }
}
