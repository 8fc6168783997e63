import SyncKernel

/// An envelope that passed every check of the gate: who sent it, and the frame's bytes, still
/// unparsed.
///
/// Invariant: `sender` is the device the issuer-signed certificate inside named, whose key signed
/// the inside, and a sibling in the roster; `account` is the userIDHash that certificate names
/// (the gate accepts only this device's own); `frame` is exactly the bytes it sealed.
public struct OpenedEnvelope: Sendable, Hashable {
    /// The sibling that sealed the frame.
    public let sender: DeviceID
    /// The account (userIDHash, 32 bytes) of the sender's verified certificate.
    public let account: [UInt8]
    /// The frame's bytes, for `Replica.receive` (or `ReplicaHost.receive`).
    public let frame: [UInt8]
    /// The frame id, now in the seen set; empty for a frame that came through a session.
    public let frameID: [UInt8]
    /// The sender's timestamp, milliseconds since 1970 (a session frame's: when it was checked).
    public let timestamp: Int64
    /// Whether it was a short handshake envelope (`CheckedEnvelope.viaHandshake`).
    public let viaHandshake: Bool

    /// An accepted envelope's fields.
    package init(sender: DeviceID, account: [UInt8], frame: [UInt8], frameID: [UInt8], timestamp: Int64, viaHandshake: Bool = false) {
        self.sender = sender
        self.account = account
        self.frame = frame
        self.frameID = frameID
        self.timestamp = timestamp
        self.viaHandshake = viaHandshake
    }

    /// The same envelope's sender, account, id and timestamp with `frame` instead: the frame a
    /// pair hello in it carried (`SessionIntake.carried`), for a host that routes by the
    /// envelope.
    public func carrying(_ frame: [UInt8]) -> OpenedEnvelope {
        OpenedEnvelope(sender: sender, account: account, frame: frame, frameID: frameID, timestamp: timestamp, viaHandshake: viaHandshake)
    }
}
