import Foundation
import NatsRelay
import SnapshotTransfer
import SyncEnvelope
import SyncJoin
import SyncKernel
import SyncRelay

/// Everything a `SyncDevice` needs, passed in by its host: where its keys and store are, the
/// namespaces it runs, how it reaches its relay, and its timings. The library reads no global
/// state and no environment.
///
/// Invariants: plain values only (nothing is opened until `SyncDevice.start()`); the files a
/// device keeps beside its store are named after `storePath` (`siblingsPath`, `seenPath`,
/// `signInSeenPath`, and the kernel's own `-wal`, `-shm` and `-lease`), so one folder can hold
/// several devices' stores (and, by default, their shared blob folder).
public struct SyncDeviceConfiguration: Sendable {
    /// The account directory (`synckernel account create` / `add-device`).
    public var account: AccountDirectory
    /// The device's name in the account directory (`devices/NAME.key`, `devices/NAME.cert`).
    public var name: String
    /// The store's SQLite file; created on the first start.
    public var storePath: String
    /// The namespaces the device syncs; every sibling must run the same set (the schema
    /// fingerprint of the set is in every frame).
    public var namespaces: NamespaceSet
    /// The relay the device reaches its siblings through: NATS (`NatsRelayOptions`: servers,
    /// TLS, credentials, reconnects) by default, or any other `Relay` (`LocalRelay` in a test).
    public var relay: any Relay
    /// The convergence loop's timings.
    public var timing = LoopTiming()
    /// The replay window and the bound of the seen set.
    public var replayWindow = ReplayWindow()
    /// The calendar clock envelopes are stamped and checked with, and status times are read from.
    public var wallClock: any WallClock = SystemWallClock()
    /// Where snapshots offered to siblings are parked and offered ones fetched from (default: the
    /// folder `synckernel-blobs` beside the store).
    public var blobs: SyncDeviceBlobs
    /// The family a sign-in acknowledgement names ("approve on your Linux laptop").
    public var family: DeviceFamily = .thisMachine
    /// How a joining device re-sends its sign-in request and how long it waits.
    public var joinPolicy = JoinPolicy()
    /// Between two sends of the snapshot request to one sibling (default 5 s).
    public var snapshotInterval: Duration = .seconds(5)
    /// Sends of the snapshot request per sibling at most (default 7: about 35 s).
    public var snapshotMaxSends = 7
    /// Whether every envelope the gate drops is reported as its own `envelopeDropped` event
    /// (default false: a flood of junk then costs a count per envelope, not an event). Drops are
    /// counted in the status and summarised by `dropsSummarised` events either way.
    public var reportsEachDrop = false
    /// The shortest time between two `dropsSummarised` events (default 5 s); none is reported for
    /// a period without drops.
    public var dropSummaryInterval: Duration = .seconds(5)

    /// A device `name` of the account at `account`, its store at `storePath`, syncing `namespaces`
    /// through `relay`.
    public init(account: AccountDirectory, name: String, storePath: String, namespaces: NamespaceSet,
                relay: any Relay = NatsRelayOptions()) {
        self.account = account
        self.name = name
        self.storePath = storePath
        self.namespaces = namespaces
        self.relay = relay
        blobs = .beside(storePath: storePath)
    }

    /// The file beside the store where the device records its siblings' last rounds, so
    /// `DeviceStatus(storeAt:)` can show them while the device runs or after it stopped.
    public var siblingsPath: String { storePath + "-siblings" }
    /// The seen set of frame ids (replay protection), beside the store.
    public var seenPath: String { storePath + "-seen" }
    /// The seen set of sign-in request ids (the join ladder's replay rung), beside the store.
    public var signInSeenPath: String { storePath + "-signin-seen" }
    /// The folder a fetched snapshot is spooled in while it is checked (the store's folder).
    public var spoolDirectory: String {
        let parent = (storePath as NSString).deletingLastPathComponent
        return parent.isEmpty ? "." : parent
    }
}
