import SyncKernel

/// The opening side of the envelope layer: runs the gate on every envelope from the device's
/// inbox and hands only an accepted envelope's frame to the `ReplicaHost`.
///
/// Invariants: no frame reaches the host (and so `SyncFrame(decoding:)`) unless the gate
/// accepted its envelope, and then with the sender the gate verified; a handshake message never
/// reaches it; envelopes are gated in
/// the order `deliver` is called; every gate event is passed to `onEvent` before the frame is
/// handed on; the frame a pair hello carried goes to the host once the transport took the hello
/// in (without a transport, with the hello: unread).
public actor SealedReceiver {
    /// The thread the actor runs on (its seen-set commits block), so no blocking call holds a thread of the
    /// cooperative pool; callers suspend meanwhile.
    private nonisolated let executor = SerialThreadExecutor(name: "synckernel.receiver")

    /// The actor's executor: a thread of its own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private let gate: EnvelopeGate
    private let host: ReplicaHost
    private let transport: SealedTransport?
    private let clock: any WallClock
    private let onEvent: @Sendable (EnvelopeEvent) -> Void

    /// Takes ownership of `gate`; hands accepted frames to `host` and handshake messages to
    /// `transport` (the device's sealing side; without one they are handed to nobody).
    public init(gate: sending EnvelopeGate, host: ReplicaHost, transport: SealedTransport? = nil,
                clock: any WallClock = SystemWallClock(), onEvent: @escaping @Sendable (EnvelopeEvent) -> Void) {
        self.gate = gate
        self.host = host
        self.transport = transport
        self.clock = clock
        self.onEvent = onEvent
    }

    /// Gates one envelope and, when accepted, hands its frame on (a handshake message to the
    /// transport, any other frame to the host); returns the verdict.
    @discardableResult
    public func deliver(_ envelope: [UInt8]) async -> EnvelopeVerdict {
        let verdict = gate.open(envelope, now: clock.millisecondsSince1970)
        for event in gate.drainEvents() { onEvent(event) }
        // A sibling sending on the reply session of this device's pair hello whose accept never
        // came: the transport says hello again.
        if case .dropped(.unknownSession) = verdict, let reply = gate.opener.awaitedReply(envelope) { await transport?.replyLost(reply) }
        guard case .accepted(let opened) = verdict else { return verdict }
        guard SealedTransport.isSessionMessage(opened.frame) else {
            await host.receive(opened.frame, from: opened.sender)
            return verdict
        }
        if case .carried(let frame) = await transport?.receiveSessionMessage(opened.frame, from: opened.sender, opener: gate.opener,
                                                                           viaHandshake: opened.viaHandshake) {
            await host.receive(frame, from: opened.sender)
        }
        return verdict
    }

    /// Envelopes dropped so far, by reason.
    public var dropCounts: [EnvelopeDropReason: Int] { gate.dropCounts }

    /// Envelopes accepted so far.
    public var acceptedCount: Int { gate.acceptedCount }
}
