import SyncKernel

/// The sealing side of the envelope layer as a `FrameTransport`: a `ReplicaHost` sends its
/// frames through it, and it seals each one to its sibling and publishes the envelope through
/// an `EnvelopeCarrier`.
///
/// Invariants: every frame is sealed to exactly the device the replica addressed, stamped with
/// `clock`'s time, and published once; a frame that cannot be sealed (no key material, not a
/// sibling, too large, an expired certificate) is not published and is reported once as
/// `EnvelopeEvent.sealFailed` (the replica's retries resend it later, like a lost frame); the
/// frame's `kind` does not reach the relay (every kind travels as `WakeClass.silent`).
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
        let envelope: SealedEnvelope
        do {
            envelope = try sealer.seal(frame, to: device, now: clock.millisecondsSince1970, wake: wake)
        } catch {
            onEvent(.sealFailed(recipient: device, error: error))
            return false
        }
        await carrier.publish(envelope)
        return true
    }

    /// Seals `frame` to `device` and publishes it.
    public func send(_ frame: [UInt8], kind: String, to device: DeviceID) async {
        let envelope: SealedEnvelope
        do {
            envelope = try sealer.seal(frame, to: device, now: clock.millisecondsSince1970)
        } catch {
            onEvent(.sealFailed(recipient: device, error: error))
            return
        }
        await carrier.publish(envelope)
    }
}
