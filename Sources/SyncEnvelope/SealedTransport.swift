import SyncKernel

/// The sealing side of the envelope layer as a `FrameTransport`: a `ReplicaHost` sends its
/// frames through it, and it seals each one to its sibling and publishes the envelope through
/// an `EnvelopeCarrier`.
///
/// Invariants: every frame is sealed to exactly the device the replica addressed, stamped with
/// `clock`'s time, and published once; a frame that cannot be sealed (no key material, not a
/// sibling, too large, an expired certificate) is not published and is reported once as
/// `EnvelopeEvent.sealFailed` (the replica's retries resend it later, like a lost frame); the
/// frame's `kind` does not reach the relay (every kind travels as `WakeClass.silent`). Under a
/// sealer with a session policy, frames go through envelope sessions once a sibling answered
/// this device's hello (`receiveSessionMessage` takes in the handshake), in whole envelopes
/// until then: a lost hello or accept delays nothing but the saving.
public actor SealedTransport: FrameTransport {
    private var sealer: EnvelopeSealer
    private let carrier: any EnvelopeCarrier
    private let clock: any WallClock
    private let onEvent: @Sendable (EnvelopeEvent) -> Void

    /// Takes ownership of `sealer`; publishes through `carrier`.
    public init(sealer: sending EnvelopeSealer, carrier: any EnvelopeCarrier, clock: any WallClock = SystemWallClock(),
                onEvent: @escaping @Sendable (EnvelopeEvent) -> Void) {
        self.sealer = sealer
        self.carrier = carrier
        self.clock = clock
        self.onEvent = onEvent
    }

    /// Adds a sibling the gate learned, so frames can be sealed to it; `invalidCertificate` for
    /// one the account did not issue (nothing changes).
    public func learn(_ certificate: SenderCertificate) throws(SyncKernelError) {
        try sealer.learn(certificate)
    }

    /// Seals a frame that is not the replica's (a snapshot transfer message) to `device` with
    /// `wake` and publishes it; returns whether it was sealed (a failure is reported as
    /// `sealFailed`, like the replica's frames').
    @discardableResult
    public func sendMessage(_ frame: [UInt8], to device: DeviceID, wake: WakeClass) async -> Bool {
        let envelopes: [SealedEnvelope]
        do {
            envelopes = try sealer.sealFrame(frame, to: device, now: clock.millisecondsSince1970, wake: wake)
        } catch {
            onEvent(.sealFailed(recipient: device, error: error))
            return false
        }
        for envelope in envelopes { await carrier.publish(envelope) }
        return true
    }

    /// Seals `frame` to `device` and publishes it (after a hello, when a session is due).
    public func send(_ frame: [UInt8], kind: String, to device: DeviceID) async {
        await sendMessage(frame, to: device, wake: .silent)
    }

    /// Whether frames to `device` go through an envelope session now.
    public func hasSession(to device: DeviceID) -> Bool {
        sealer.hasSession(to: device, now: clock.millisecondsSince1970)
    }

    /// Takes in a handshake message: the frame of a whole envelope the gate whose stateless stage
    /// is `opener` accepted from `sender`, when it starts with the session magic
    /// (`isSessionMessage`). A hello opens a receiving session in `opener` and its accept is
    /// sealed back in the form the hello came in (`viaHandshake`: a short handshake envelope,
    /// otherwise a whole one); a pair hello also opens the session to `sender` once
    /// that accept is published, and the frame it carries is handed back (`.carried`) for the
    /// host to handle as any accepted frame; an accept opens the sealer's session to `sender`.
    /// A message that does not decode, or a hello that cannot be answered, is reported once as
    /// `sessionRefused` and opens nothing (a pair hello's frame is still handed back: its
    /// envelope passed the gate). Returns `.notSession`, touching nothing, for any other frame
    /// (the host hands it on).
    public func receiveSessionMessage(_ frame: [UInt8], from sender: DeviceID, opener: EnvelopeOpener,
                                      viaHandshake: Bool = false) async -> SessionIntake {
        guard SessionMessage.hasMagic(frame) else { return .notSession }
        let now = clock.millisecondsSince1970
        guard let message = SessionMessage(decoding: frame) else {
            onEvent(.sessionRefused(sibling: sender))
            return .handled
        }
        _ = sealer.receive(message, from: sender, now: now)
        guard case .hello(let hello) = message else { return .handled }
        let carried: SessionIntake = hello.frame.isEmpty ? .handled : .carried(hello.frame)
        guard let (accept, replyKey) = opener.acceptSession(hello, from: sender, now: now) else {
            onEvent(.sessionRefused(sibling: sender))
            return carried
        }
        do {
            await carrier.publish(try sealer.sealHandshake(.accept(accept), to: sender, now: now, wake: .silent, short: viaHandshake))
        } catch {
            onEvent(.sealFailed(recipient: sender, error: error))
            return carried
        }
        if let replyKey { sealer.openReply(to: sender, for: hello, key: replyKey, now: now) }
        return carried
    }

    /// Takes in that a sibling sends on the reply session of this device's waiting pair hello
    /// whose accept never came (`EnvelopeOpener.awaitedReply` of an envelope still unknown once
    /// the envelopes before it were handled): the hello goes again at once, once per hello, so
    /// the sibling (whose session ends when a hello arrives) opens the sessions anew.
    public func replyLost(_ reply: AwaitedReply) async {
        do {
            if let hello = try sealer.replyLost(reply, now: clock.millisecondsSince1970) { await carrier.publish(hello) }
        } catch {
            onEvent(.sealFailed(recipient: reply.sibling, error: error))
        }
    }

    /// Whether `frame` (the frame of an accepted envelope) is a handshake message, for
    /// `receiveSessionMessage` rather than the replica.
    public nonisolated static func isSessionMessage(_ frame: [UInt8]) -> Bool {
        SessionMessage.hasMagic(frame)
    }
}
