import SyncKernel

/// The relay subject of one device's inbox: what the relay routes an envelope by, and all it
/// learns about the recipient.
///
/// Invariants: the value is `synckernel.inbox.` and 32 lower-case hex digits, the first 16
/// bytes of BLAKE2b of the device id keyed with the account's inbox key (`ChannelKeys.inbox`),
/// so it is stable for a device (the device subscribes to it once) but names neither the account
/// nor the device's keys to anyone without the account seed; it holds only subject-safe
/// characters (letters, digits and dots).
public struct RecipientSubject: Sendable, Hashable, CustomStringConvertible {
    /// What every inbox subject starts with.
    public static let prefix = "synckernel.inbox."
    /// Bytes of the keyed hash in the subject.
    private static let hashBytes = 16

    /// The subject, for example `synckernel.inbox.` followed by 32 hex digits.
    public let value: String

    /// The inbox subject of `device` under the account's inbox key.
    package init(device: DeviceID, inboxKey: [UInt8]) throws(SyncKernelError) {
        guard let hash = Sodium.keyedHash(device.publicKey, key: inboxKey, count: Self.hashBytes) else {
            throw SyncKernelError(.keyMaterialMissing, "no inbox key")
        }
        value = Self.prefix + Hex.encode(hash)
    }

    /// The subject itself.
    public var description: String { value }
}
