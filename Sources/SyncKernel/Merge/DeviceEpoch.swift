/// The dimension a device's local writes are counted under in one store, and which epoch of the
/// device it is.
///
/// Invariants: epoch 0 is the device's own identity; a later epoch's dimension is derived from
/// the device, the epoch number and a random nonce (`DeviceID.epoch(_:of:nonce:)`), so it is a
/// dimension no vector anywhere has counted yet. A store takes a later epoch whenever it cannot
/// vouch that it holds everything this device counted before (restored, copied, rolled back),
/// so its counters never repeat one the fleet already holds.
public struct DeviceEpoch: Sendable, Hashable {
    /// The device identity.
    public let device: DeviceID
    /// The bytes of a later epoch's nonce.
    package static let nonceBytes = 16

    /// The epoch number, 0 for the device's own identity.
    public let number: UInt64
    /// The random nonce the dimension was derived with (empty for epoch 0).
    package let nonce: [UInt8]
    /// The dimension local writes are counted under.
    public let dimension: DeviceID

    /// The epoch `number` of `device` under `nonce`.
    init(device: DeviceID, number: UInt64, nonce: [UInt8]) {
        self.device = device
        self.number = number
        self.nonce = number == 0 ? [] : nonce
        dimension = DeviceID.epoch(number, of: device, nonce: nonce)
    }

    /// Epoch 0: the device's own identity.
    static func initial(_ device: DeviceID) -> DeviceEpoch {
        DeviceEpoch(device: device, number: 0, nonce: [])
    }
}
