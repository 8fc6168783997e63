import NatsRelay
import SyncEnvelope
import SyncKernel

/// Everything a `SyncDevice` needs, passed in by its host: where its keys and store are, the
/// namespaces it runs, how it reaches its relay, and its timings. The library reads no global
/// state and no environment.
///
/// Invariants: plain values only (nothing is opened until `SyncDevice.start()`); the files a
/// device keeps beside its store are named after `storePath` (`siblingsPath`, `seenPath`, and the
/// kernel's own `-wal`, `-shm` and `-lease`), so one folder can hold several devices' stores.
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
    /// How the device reaches its relay (servers, TLS, credentials, reconnects).
    public var relay: NatsRelayOptions
    /// The convergence loop's timings.
    public var timing = LoopTiming()
    /// The replay window and the bound of the seen set.
    public var replayWindow = ReplayWindow()
    /// The calendar clock envelopes are stamped and checked with, and status times are read from.
    public var wallClock: any WallClock = SystemWallClock()

    /// A device `name` of the account at `account`, its store at `storePath`, syncing `namespaces`
    /// through `relay`.
    public init(account: AccountDirectory, name: String, storePath: String, namespaces: NamespaceSet,
                relay: NatsRelayOptions = NatsRelayOptions()) {
        self.account = account
        self.name = name
        self.storePath = storePath
        self.namespaces = namespaces
        self.relay = relay
    }

    /// The file beside the store where the device records its siblings' last rounds, so
    /// `DeviceStatus(storeAt:)` can show them while the device runs or after it stopped.
    public var siblingsPath: String { storePath + "-siblings" }
    /// The seen set of frame ids (replay protection), beside the store.
    public var seenPath: String { storePath + "-seen" }
}
