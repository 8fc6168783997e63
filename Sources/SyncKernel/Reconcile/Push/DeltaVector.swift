/// A pushed row's vector written as what the pusher's own write changed over the version the
/// receiver holds: the entry of the pusher's write dimension, and a check of every other entry.
///
/// A row edited since the two devices last held equal roots carries, beside the pusher's write
/// dimension, the dimensions of the row's whole history (its creation, earlier epochs, other
/// devices), each a 32-byte table entry when written whole. The receiver holds that history
/// already, in its own version of the key, so a push to a sibling that announced
/// `SyncFrame.leanCapability` writes only the changed entries and `checkBytes` bytes of SHA-256
/// (its own domain) over the canonical encoding of the rest.
///
/// Invariants: the receiver rebuilds the vector only when the check of its own version's
/// entries, less the changed dimensions, equals the check shipped (`resolve`), so a row whose
/// history differs there (a concurrent write, a delete, no version at all) is never merged under
/// a vector the pusher did not hold: it stays unmerged (`ApplyOutcome.unresolvedKeys`), the
/// roots stay apart, and the exchange that follows ships it whole. Only a row without siblings
/// or a content vector of its own, whose vector counts the write dimension, is written so.
package enum DeltaVector {
    /// The bytes of the check a delta row carries.
    package static let checkBytes = 8

    /// The domain of the check.
    private static let domain = Array("synckernel.push.delta-base".utf8)

    /// The check of `vector`'s entries but those of `dimensions`.
    package static func check(of vector: VersionVector, excluding dimensions: Set<DeviceID>) -> [UInt8] {
        let base = VersionVector(vector.counters.filter { !dimensions.contains($0.key) })
        return Array(SHA256.hash(domain: domain, base.encoded()).prefix(checkBytes))
    }

    /// Whether a push writes `row` as a delta over `dimension` (the pusher's write dimension):
    /// the row has no siblings and no content vector of its own, its vector counts `dimension`,
    /// and another entry names a dimension that costs a table entry (not the row's own creation,
    /// the sender or the receiver, which cost a one-byte reference whole).
    package static func applies(to row: ShippedRow, dimension: DeviceID, sender: DeviceID?, receiver: DeviceID?) -> Bool {
        guard row.siblings.isEmpty, row.contentVector == nil, let vector = row.vector, vector[dimension] > 0 else { return false }
        return vector.counters.keys.contains { $0 != dimension && $0 != row.creation && $0 != sender && $0 != receiver }
    }

    /// The entries a delta row ships for `vector`: only `dimension`'s.
    package static func delta(of vector: VersionVector, dimension: DeviceID) -> VersionVector {
        VersionVector([dimension: vector[dimension]])
    }

    /// The vector `delta` (with `check`) stands for over `held`, the receiver's own knowledge of
    /// the key: `held`'s entries but the delta's dimensions, then the delta's; nil when the check
    /// of those entries of `held` is not `check`.
    package static func resolve(_ delta: VersionVector, check: [UInt8], over held: VersionVector) -> VersionVector? {
        let changed = Set(delta.counters.keys)
        guard self.check(of: held, excluding: changed) == check else { return nil }
        return VersionVector(held.counters.filter { !changed.contains($0.key) }.merging(delta.counters) { $1 })
    }
}
