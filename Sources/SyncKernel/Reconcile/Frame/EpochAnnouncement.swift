/// A sender's current device epoch as a frame announces it (`SyncFrame.epochAnnouncement`, key
/// `epoch`, compact `g`): its number and nonce, from which the receiver derives the dimension
/// (`DeviceID.epoch(_:of:nonce:)` of the frame's sender) that a push's `DeviceTable.epochIndex`
/// then stands for.
///
/// Invariants: the number is above 0 (epoch 0 is the device key itself, which a frame names by
/// `DeviceTable.senderIndex`) and the nonce is `DeviceEpoch.nonceBytes` bytes; anything else is
/// `malformedFrame`. The dimension is derived from the sender the envelope proved, so a sibling
/// can announce only epochs of its own device.
package struct EpochAnnouncement: Sendable, Hashable {
    /// The epoch number.
    package let number: UInt64
    /// The epoch's nonce.
    package let nonce: [UInt8]

    /// The announcement of `epoch`; nil for epoch 0, which needs none.
    package init?(_ epoch: DeviceEpoch) {
        guard epoch.number > 0 else { return nil }
        number = epoch.number
        nonce = epoch.nonce
    }

    /// Reads `[number, nonce]` at `cursor`.
    init(reading cursor: inout CBORCursor, budget: inout DecodeBudget) throws(SyncKernelError) {
        guard try cursor.readArrayHeader() == 2 else { throw SyncKernelError(.malformedFrame, "an epoch announcement is a number and a nonce") }
        number = try cursor.readUInt()
        guard number > 0 else { throw SyncKernelError(.malformedFrame, "an announced epoch of number 0") }
        nonce = try cursor.readBytes(count: DeviceEpoch.nonceBytes, budget: &budget)
    }

    /// Writes `[number, nonce]`.
    func encode(into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 2)
        writer.write(number)
        writer.write(bytes: nonce)
    }

    /// The dimension `sender` counts its writes under in the announced epoch.
    package func dimension(of sender: DeviceID) -> DeviceID {
        DeviceID.epoch(number, of: sender, nonce: nonce)
    }

    /// The bytes of an echo (`SyncFrame.epochEcho`): the first bytes of the dimension the
    /// echoing device holds for the sibling.
    package static let echoBytes = 8

    /// The echo of `dimension`.
    package static func echo(of dimension: DeviceID) -> [UInt8] {
        Array(dimension.publicKey.prefix(echoBytes))
    }
}
