/// One key where two stores' namespaces differ, with what each side stores for it.
///
/// Invariant: the two sides' structure items (`StoredKey.item`) differ; a side that stores
/// nothing at all for the key is nil.
package struct KeyDifference: Sendable {
    /// The key.
    package let key: [UInt8]
    /// What the first store holds.
    package let a: StoredKey?
    /// What the second store holds.
    package let b: StoredKey?

    /// The keys of `a` and `b` (one namespace's, each in key order) whose items differ, in key
    /// order: the comparison of every key, which `StructureComparison` narrows to a few.
    package static func listing(_ a: [StoredKey], _ b: [StoredKey]) -> [KeyDifference] {
        let byKeyA = Dictionary(a.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        let byKeyB = Dictionary(b.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return Set(byKeyA.keys).union(byKeyB.keys).sorted(by: [UInt8].keyPrecedes)
            .filter { byKeyA[$0]?.item != byKeyB[$0]?.item }
            .map { KeyDifference(key: $0, a: byKeyA[$0], b: byKeyB[$0]) }
    }
}
