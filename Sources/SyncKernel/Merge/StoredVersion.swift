/// One version of a causally tracked key: the vector of the write, its row (no row for a
/// delete) and the device that wrote it, when known.
///
/// Invariant: a key's versions form an antichain (no version's vector is dominated by another's);
/// the visible row is the live version the namespace's tie-break prefers, and the others are kept
/// so that no write is lost to a tie and no delete forgets what it saw. `writer` is bookkeeping
/// only: it takes no part in any merge decision, hashes into no leaf, and is nil for a delete, for
/// a row registered before any write was counted, and for a version from a build that shipped no
/// writer.
struct StoredVersion: Hashable {
    let vector: VersionVector
    let row: [UInt8]?
    let writer: DeviceID?

    init(vector: VersionVector, row: [UInt8]?, writer: DeviceID? = nil) {
        self.vector = vector
        self.row = row
        self.writer = row == nil ? nil : writer
    }

    var isLive: Bool { row != nil }

    /// This version with the writer `other` names when it names one this version lacks or a
    /// smaller one: two copies of one write (one vector, one row) keep one writer, the same on
    /// every device whatever order the copies arrive in.
    func keepingWriter(of other: StoredVersion) -> StoredVersion {
        guard let theirs = other.writer, writer.map({ theirs < $0 }) ?? true else { return self }
        return StoredVersion(vector: vector, row: row, writer: theirs)
    }
}
