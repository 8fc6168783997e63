import SyncKernel

/// An envelope that passed every check of the gate that needs no state beyond the keys and the
/// roster (`EnvelopeOpener.check`): opened, its certificate, MAC and signature verified, addressed
/// to this device. What remains is the seen set (`EnvelopeGate.admit`).
///
/// Invariant: `certificate` verified under the account's issuer key, names this account, had not
/// expired at the check, and its device's key signed the inside (for an envelope that came
/// through a session, `viaSession`: signed the hello that opened the session, whose key sealed
/// this frame; for a short handshake envelope, `viaHandshake`: its certified envelope key's
/// secret sealed it); `frame` is exactly the bytes it sealed; nothing of the frame was parsed.
public struct CheckedEnvelope: Sendable, Hashable {
    /// The sender's verified certificate.
    public let certificate: SenderCertificate
    /// The frame's bytes, unparsed.
    public let frame: [UInt8]
    /// The frame id, not yet in the seen set; empty for a session envelope (its counter, already
    /// recorded in its session's window, guards it instead).
    public let frameID: [UInt8]
    /// The sender's timestamp, milliseconds since 1970 (for a session envelope, which carries
    /// none, when it was checked).
    public let timestamp: Int64
    /// The envelope's size on the wire.
    public let bytes: Int
    /// When it was checked (milliseconds since 1970): where it arrived, before any queue. The seen
    /// set judges its timestamp against this, so a wait behind a busy inbox never makes it late.
    public let checkedAt: Int64
    /// The keyed fingerprint of its bytes, when its opener remembers accepted envelopes.
    package let fingerprint: UInt64?
    /// Whether it came through an envelope session (the seen set has nothing to check then).
    public let viaSession: Bool
    /// Whether it was a short handshake envelope (`HandshakeFormat`): its frame is a session
    /// message, its sender proved by its certified key, and an accept answering it goes short too.
    public let viaHandshake: Bool

    /// An envelope that passed the stateless checks.
    package init(certificate: SenderCertificate, frame: [UInt8], frameID: [UInt8], timestamp: Int64, bytes: Int,
                 checkedAt: Int64, fingerprint: UInt64? = nil, viaSession: Bool = false, viaHandshake: Bool = false) {
        self.certificate = certificate
        self.frame = frame
        self.frameID = frameID
        self.timestamp = timestamp
        self.bytes = bytes
        self.checkedAt = checkedAt
        self.fingerprint = fingerprint
        self.viaSession = viaSession
        self.viaHandshake = viaHandshake
    }
}
