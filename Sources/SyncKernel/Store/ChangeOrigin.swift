/// Where a committed change of a row came from, as the change feed reports it.
///
/// Invariant: stored beside each change as NULL (`local`), an empty blob (`imported`) or the
/// sibling's 32-byte device key (`sibling`), so it reads back exactly as it was written.
public enum ChangeOrigin: Sendable, Hashable {
    /// A write of this device (an app's transaction, or the store's own upkeep: a row migration,
    /// a damaged row set aside).
    case local
    /// A merge of what this sibling sent.
    case sibling(DeviceID)
    /// A snapshot imported from a sibling (`absorbSnapshot`).
    case imported

    /// The stored form: nil, no bytes, or the device key.
    var stored: [UInt8]? {
        switch self {
        case .local: nil
        case .imported: []
        case .sibling(let device): device.publicKey
        }
    }

    /// The origin a stored value names; an unreadable one reads as `local`.
    init(stored: [UInt8]?) {
        guard let stored else {
            self = .local
            return
        }
        if stored.isEmpty {
            self = .imported
        } else if let device = try? DeviceID(publicKey: stored) {
            self = .sibling(device)
        } else {
            self = .local
        }
    }
}
