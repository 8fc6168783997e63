import SyncKernel

/// peerDevices: each contact's device roster, synced between this account's devices.
///
/// Rule: `.singleWriterLWW` on the contact's own `lastAdvertisedAt`. The roster has one author,
/// the contact, whose advertisements are totally ordered by its own clock; a causal add-wins
/// merge would resurrect a device the contact dropped the moment a stale advertisement raced the
/// drop. Later stamp wins; an equal stamp goes to the greater leaf encoding.
public enum PeerDevicesNamespace: SyncNamespace {
    public typealias Row = PeerDeviceRoster

    public static let name = "peerDevices"
    public static let leafSchemaVersion = 1
    public static let excludedFields: [ExcludedField] = []
    public static let mergeRule: MergeRule<PeerDeviceRoster> = .singleWriterLWW { $0.lastAdvertisedAt }
    public static let causalMembership: CausalMembership<PeerDeviceRoster> = .untracked

    public static func key(of row: PeerDeviceRoster) -> [UInt8] { row.contactPubkey }

    public static func encodeLeaf(_ row: PeerDeviceRoster, into writer: inout CanonicalWriter) {
        encodeRow(row, into: &writer)
    }

    public static func encodeRow(_ row: PeerDeviceRoster, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 3)
        writer.write(bytes: row.contactPubkey)
        writer.writeArray(row.devices) { writer, device in
            writer.writeArrayHeader(count: 2)
            writer.write(bytes: device.key)
            writer.write(device.label)
        }
        writer.write(row.lastAdvertisedAt)
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> PeerDeviceRoster {
        let fields = try value.fields(3, of: "a device roster")
        var devices: [PeerDeviceRoster.Device] = []
        for item in try fields[1].array() {
            let pair = try item.fields(2, of: "a roster device")
            devices.append(PeerDeviceRoster.Device(key: try pair[0].bytes(), label: try pair[1].text()))
        }
        let roster = PeerDeviceRoster(contactPubkey: try fields[0].bytes(count: 32), devices: devices,
                                      lastAdvertisedAt: try fields[2].int64())
        guard roster.devices.count == devices.count, roster.devices == devices else {
            throw SyncKernelError(.nonCanonicalEncoding, "roster devices out of order")
        }
        return roster
    }
}
