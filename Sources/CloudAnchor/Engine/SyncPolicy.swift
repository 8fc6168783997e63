import Foundation

/// The guards and names a `SyncEngine` runs with.
///
/// Invariant: the defaults are the contract's: empty guard on, shrink guard at half with a floor
/// of 4 entries, marker at `cloudanchor.marker`; and one writer at a time (a lease).
public struct SyncPolicy: Sendable, Hashable {
    /// Stops a run that would delete too large a share of the known remote files.
    public struct ShrinkGuard: Sendable, Hashable {
        /// The largest share of known remote non-marker entries one run may delete.
        public var maxDeleteFraction: Double
        /// The guard applies only once at least this many remote non-marker entries are known.
        public var minRemoteEntries: Int

        /// Creates a guard; the defaults are half and 4.
        public init(maxDeleteFraction: Double = 0.5, minRemoteEntries: Int = 4) {
            self.maxDeleteFraction = maxDeleteFraction
            self.minRemoteEntries = minRemoteEntries
        }
    }

    /// The marker's path in the cloud.
    public var markerPath: String
    /// Refuses an empty snapshot over an existing backup that was never synced from here.
    public var guardEmptyOverExisting: Bool
    /// The shrink guard; `nil` disables it.
    public var shrinkGuard: ShrinkGuard?
    /// Also uploads the marker when its bytes differ from the ones last uploaded (or its remote
    /// copy changed since). Off by the contract (a marker change alone does not upload); a
    /// directory backup turns it on, as its marker is the manifest of everything, links and
    /// folders included, and must be rewritten by a run that only deletes.
    public var uploadsChangedMarker: Bool
    /// How long the writer lease a run holds lasts, in seconds (renewed before each put or
    /// delete once half of it has passed); `nil` runs without a lease.
    public var leaseDuration: Double?

    /// Creates a policy with the contract's defaults and a ten-minute writer lease.
    public init(markerPath: String = "cloudanchor.marker", guardEmptyOverExisting: Bool = true,
                shrinkGuard: ShrinkGuard? = ShrinkGuard(), uploadsChangedMarker: Bool = false,
                leaseDuration: Double? = 600) {
        self.markerPath = markerPath
        self.guardEmptyOverExisting = guardEmptyOverExisting
        self.shrinkGuard = shrinkGuard
        self.uploadsChangedMarker = uploadsChangedMarker
        self.leaseDuration = leaseDuration
    }
}
