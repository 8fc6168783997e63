/// What applying a `reconcile_resp` changed.
public struct ApplyOutcome: Sendable, Hashable {
    /// The namespace merged.
    public let namespace: String
    /// Incoming rows that changed the stored row.
    public let rowsApplied: Int
    /// Incoming tombstones that deleted a row or recorded a new delete.
    public let tombstonesApplied: Int
    /// Whether the namespace's root moved.
    public let digestChanged: Bool
    /// Keys to ship back to the response's sender, sorted: those it asked for (`want`) without
    /// shipping a row of its own, and those whose state here held something the shipped version
    /// did not (a concurrent write, a later delete), found while merging.
    public let keysToShipBack: [[UInt8]]
    /// Keys whose versions collided (one vector, different content: two writes counted alike by
    /// a store that lost its history), told apart and kept as concurrent versions, sorted.
    public let collidedKeys: [[UInt8]]
    /// The fresh epoch this store took because the response showed it lost history (a shipped
    /// vector counted this device's current dimension past what the store held), if it did.
    public let epochChange: EpochChange?
    /// Keys the merge left with live versions of more than one content, where the set of live versions is not
    /// the one held before (a new conflict, or one that gained or changed a version), sorted:
    /// `KernelStore.versions` lists them, `ReplicaEvent.concurrentEdit` reports each.
    public let conflictsOpened: [[UInt8]]
    /// Keys that held live versions of more than one content and now hold one or none (a write that dominates
    /// them all arrived, or a delete that saw them all), sorted.
    public let conflictsResolved: [[UInt8]]
    /// Operations the shipped rows held that the namespace's rules refuse (an edit made by an
    /// account that is not the row's author): dropped by the merge, never stored.
    public let refusedOperations: Int
    /// Keys whose fill-if-empty fields held different values here and in the shipped row, sorted
    /// by key; the merge settled each to the greater value on every device.
    public let backfillConflicts: [BackfillConflict]
    /// Keys whose pushed row or delete this store could not read against its own state and left
    /// unmerged, sorted: it named the sender's epoch this store holds none or several of, or it
    /// was a delta row (`DeltaVector`) whose base is not this store's version of the key (a
    /// concurrent write or delete here, or no version at all). The roots stay apart, and the
    /// exchange that follows ships those keys whole.
    public let unresolvedKeys: [[UInt8]]

    /// An outcome of the given parts (the merge builds one; a host's test may too).
    package init(namespace: String, rowsApplied: Int, tombstonesApplied: Int, digestChanged: Bool, keysToShipBack: [[UInt8]],
                 collidedKeys: [[UInt8]], epochChange: EpochChange?, conflictsOpened: [[UInt8]], conflictsResolved: [[UInt8]],
                 refusedOperations: Int, backfillConflicts: [BackfillConflict], unresolvedKeys: [[UInt8]] = []) {
        self.namespace = namespace
        self.rowsApplied = rowsApplied
        self.tombstonesApplied = tombstonesApplied
        self.digestChanged = digestChanged
        self.keysToShipBack = keysToShipBack
        self.collidedKeys = collidedKeys
        self.epochChange = epochChange
        self.conflictsOpened = conflictsOpened
        self.conflictsResolved = conflictsResolved
        self.refusedOperations = refusedOperations
        self.backfillConflicts = backfillConflicts
        self.unresolvedKeys = unresolvedKeys
    }

    /// Both outcomes of one namespace taken together (for a response that came in parts).
    public func combined(with other: ApplyOutcome) -> ApplyOutcome {
        ApplyOutcome(namespace: namespace, rowsApplied: rowsApplied + other.rowsApplied,
                     tombstonesApplied: tombstonesApplied + other.tombstonesApplied,
                     digestChanged: digestChanged || other.digestChanged,
                     keysToShipBack: Set(keysToShipBack + other.keysToShipBack).sorted(by: [UInt8].keyPrecedes),
                     collidedKeys: Set(collidedKeys + other.collidedKeys).sorted(by: [UInt8].keyPrecedes),
                     epochChange: other.epochChange ?? epochChange,
                     conflictsOpened: Set(conflictsOpened + other.conflictsOpened).subtracting(other.conflictsResolved)
                        .sorted(by: [UInt8].keyPrecedes),
                     conflictsResolved: Set(conflictsResolved + other.conflictsResolved).subtracting(other.conflictsOpened)
                        .sorted(by: [UInt8].keyPrecedes),
                     refusedOperations: refusedOperations + other.refusedOperations,
                     backfillConflicts: (backfillConflicts + other.backfillConflicts).sorted { [UInt8].keyPrecedes($0.key, $1.key) },
                     unresolvedKeys: Set(unresolvedKeys + other.unresolvedKeys).sorted(by: [UInt8].keyPrecedes))
    }
}
