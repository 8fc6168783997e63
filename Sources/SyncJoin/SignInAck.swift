/// A sibling's acknowledgement of a sign-in request that passed every rung of its ladder: the
/// request reached a device of the account, which is now asking its user. It carries the
/// sibling's device family, so the new device can say where to approve.
///
/// Body (after a reply's kind and request id): family length n (1...32), then the family's n
/// ASCII bytes.
///
/// Invariants: `encoded()` and `init?(parsing:)` are exact inverses; the family is a valid
/// `DeviceFamily` (safe to print).
public struct SignInAck: Sendable, Hashable {
    /// The acknowledging sibling's kind of device.
    public let family: DeviceFamily

    /// An acknowledgement carrying `family`.
    public init(family: DeviceFamily) {
        self.family = family
    }

    /// The body's bytes.
    package func encoded() -> [UInt8] {
        [UInt8(family.value.utf8.count)] + Array(family.value.utf8)
    }

    /// Reads a body; nil when it is not exactly a length and a valid family.
    package init?(parsing bytes: ArraySlice<UInt8>) {
        guard let length = bytes.first, bytes.count == 1 + Int(length),
              let family = DeviceFamily(String(decoding: bytes.dropFirst(), as: UTF8.self)) else { return nil }
        self.family = family
    }
}
