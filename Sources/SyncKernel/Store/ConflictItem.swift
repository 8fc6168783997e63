/// The structure item of a key in conflict: what the persisted structure (set hash, sketch,
/// bucket fingerprints) and range listings hold for a key that keeps a live version of another
/// leaf beside its visible row.
///
/// Invariants: a key that keeps no live version of another leaf beside its visible row has its
/// leaf as its item, exactly as before conflicts were tracked (so stores without conflicts hash as
/// they always did, and the spec's Merkle digest, over leaves, never sees an item); concurrent
/// writes of one content are no conflict, so a store that met several of them holds the item of
/// a store that met one (the digest commits to content, not to history); a key in conflict has
/// SHA-256 under `synckernel.conflict` over its visible leaf, the vector its visible content
/// came from and each kept live version's vector and leaf (in vector order), so two stores
/// hold the same item for a key exactly when they hold the same live versions of it. That is what
/// makes a conflict reach every device (a device that lacks a concurrent version, or still holds
/// versions another device's resolve superseded, differs in the digest and reconciles the key),
/// while the leaf itself stays a claim about content only.
enum ConflictItem {
    /// The domain separator of conflict items.
    static let domain = Array("synckernel.conflict".utf8)

    /// The item of a key whose visible row has `leaf`, made by the write of `contentVector`, and
    /// which keeps `others` (each live version's vector and leaf hash) beside it; `leaf` itself
    /// when it keeps none.
    static func hash(leaf: [UInt8], contentVector: VersionVector, others: [(vector: VersionVector, leaf: [UInt8])]) -> [UInt8] {
        guard !others.isEmpty else { return leaf }
        let sorted = others.map { (vector: $0.vector.encoded(), leaf: $0.leaf) }
            .sorted { $0.vector.lexicographicallyPrecedes($1.vector) }
        var writer = CanonicalWriter()
        writer.writeArrayHeader(count: 3)
        writer.write(bytes: leaf)
        contentVector.encode(into: &writer)
        writer.writeArrayHeader(count: sorted.count)
        for other in sorted {
            writer.writeArrayHeader(count: 2)
            writer.write(encodedItem: other.vector)
            writer.write(bytes: other.leaf)
        }
        return SHA256.hash(domain: domain, writer.bytes)
    }
}
