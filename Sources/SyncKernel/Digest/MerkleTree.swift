/// Folds sorted leaf hashes into one root.
///
/// Invariants: interior nodes hash under `nodeDomain`, a separator no leaf uses; pairs fold left
/// to right level by level; an odd node at the end of a level is promoted unchanged (so the root
/// of one leaf is that leaf); the root of no leaves is 32 zero bytes.
package enum MerkleTree {
    /// The domain separator of interior nodes.
    package static let nodeDomain = Array("synckernel.node".utf8)
    /// The root of an empty leaf list.
    package static let emptyRoot = [UInt8](repeating: 0, count: 32)

    /// The root over `hashes`, which the caller has sorted by key.
    package static func root<Hashes: Collection>(_ hashes: Hashes) -> [UInt8] where Hashes.Element == [UInt8] {
        guard !hashes.isEmpty else { return emptyRoot }
        var level = Array(hashes)
        while level.count > 1 {
            var next: [[UInt8]] = []
            next.reserveCapacity((level.count + 1) / 2)
            var index = 0
            while index + 1 < level.count {
                next.append(SHA256.hash(domain: nodeDomain, level[index], level[index + 1]))
                index += 2
            }
            if index < level.count { next.append(level[index]) }
            level = next
        }
        return level[0]
    }
}
