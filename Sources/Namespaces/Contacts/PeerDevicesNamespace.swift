import SyncKernel

/// peerDevices: each contact's device roster, synced between this account's devices.
///
/// Rule: `.singleWriterLWW` on the contact's own `lastAdvertisedAt`. The roster has one author,
/// the contact, whose advertisements are totally ordered by its own clock; a causal add-wins
/// merge would resurrect a device the contact dropped the moment a stale advertisement raced the
/// drop. Later stamp wins; an equal stamp goes to the greater leaf encoding.
public enum PeerDevicesNamespace: SyncNamespace {
    public static let name = "peerDevices"

    public static let schema = RowSchema<PeerDeviceRoster>(
        blank: PeerDeviceRoster(contactPubkey: [], devices: [], lastAdvertisedAt: 0), key: \.contactPubkey, layout: .wholeRow,
        validate: { roster throws(SyncKernelError) in
            guard zip(roster.devices, roster.devices.dropFirst()).allSatisfy({ $0.key.lexicographicallyPrecedes($1.key) }) else {
                throw SyncKernelError(.nonCanonicalEncoding, "roster devices out of order")
            }
        }, [
            .hashed("contactPubkey", \.contactPubkey, .bytes(count: 32)),
            .hashed("devices", \.devices, .array(PeerDeviceRoster.Device.codec)),
            .hashed("lastAdvertisedAt", \.lastAdvertisedAt, .int64),
        ])

    public static let mergeRule = MergeRule<PeerDeviceRoster>.singleWriterLWW(stamp: \.lastAdvertisedAt)
}
