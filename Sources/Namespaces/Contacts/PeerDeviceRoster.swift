import SyncKernel

/// A contact's device roster, as the contact last advertised it.
///
/// Invariant: `devices` is sorted by key with no repeats; `lastAdvertisedAt` is the contact's own
/// stamp for the advertisement (the contact is the roster's only author).
public struct PeerDeviceRoster: Sendable, Hashable {
    /// One device of a contact.
    public struct Device: Sendable, Hashable {
        /// The device's public key.
        public var key: [UInt8]
        /// A label for display.
        public var label: String

        /// Creates a device entry.
        public init(key: [UInt8], label: String) {
            self.key = key
            self.label = label
        }
    }

    /// The contact's public key, the stable cross-device key.
    public var contactPubkey: [UInt8]
    /// The advertised devices, sorted by key.
    public var devices: [Device]
    /// The contact's stamp of this advertisement (seconds on the contact's clock).
    public var lastAdvertisedAt: Int64

    /// Creates a roster; devices are sorted and de-duplicated by key.
    public init(contactPubkey: [UInt8], devices: [Device], lastAdvertisedAt: Int64) {
        self.contactPubkey = contactPubkey
        var seen: Set<[UInt8]> = []
        self.devices = devices.sorted { $0.key.lexicographicallyPrecedes($1.key) }.filter { seen.insert($0.key).inserted }
        self.lastAdvertisedAt = lastAdvertisedAt
    }
}

extension PeerDeviceRoster.Device {
    /// The wire form of a device: `[key, label]`.
    public static let codec = FieldCodec<PeerDeviceRoster.Device>.record(PeerDeviceRoster.Device(key: [], label: ""), [
        .member("key", \.key, .bytes()), .member("label", \.label, .text),
    ])
}
