/// What `SealedTransport.receiveSessionMessage` did with an accepted envelope's frame.
///
/// Invariant: `.carried` holds exactly the frame a pair hello carried, from the envelope the
/// gate accepted, so the host hands it on as it would the frame of that envelope.
public enum SessionIntake: Sendable, Hashable {
    /// Not a handshake message: the host hands the frame on.
    case notSession
    /// A handshake message, taken in (or refused and reported): nothing to hand on.
    case handled
    /// A pair hello, taken in, that carried this frame: the host hands it on.
    case carried([UInt8])
}
