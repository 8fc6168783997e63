/// What importing snapshot pages insert-if-absent changed.
///
/// Invariant: every key a page carried is counted exactly once, in `keysImported`,
/// `keysPresent` or `keysRefused`.
public struct SnapshotImportOutcome: Sendable, Hashable {
    /// Keys this store held nothing under, now stored: a visible row, kept versions or deletes.
    public var keysImported = 0
    /// Of those, keys that now have a visible row.
    public var rowsImported = 0
    /// Delete versions stored (kept beside a row or alone).
    public var deletesImported = 0
    /// Keys left alone because this store already held something under them (a re-import).
    public var keysPresent = 0
    /// Keys refused before anything of them was written: a row the namespace does not read, a
    /// vector out of range, a sibling version of another key, a device-derived row.
    public var keysRefused = 0
    /// The fresh epoch the store took because an imported vector counted this device's current
    /// dimension past what the store held (a store that lost its history), if it did.
    public var epochChange: EpochChange?

    /// An empty outcome.
    public init() {}

    /// Both outcomes taken together (the later epoch change wins).
    public func combined(with other: SnapshotImportOutcome) -> SnapshotImportOutcome {
        var sum = self
        sum.keysImported += other.keysImported
        sum.rowsImported += other.rowsImported
        sum.deletesImported += other.deletesImported
        sum.keysPresent += other.keysPresent
        sum.keysRefused += other.keysRefused
        sum.epochChange = other.epochChange ?? epochChange
        return sum
    }
}
