import SyncKernel

/// Seals frames to siblings: each frame to exactly one sibling, with sealed sender.
///
/// Invariants: `seal` returns an envelope only with key material, to a sibling of the roster,
/// for a frame within `SyncFrame.maxFrameBytes`, under this device's own certificate while it is
/// unexpired; anything else throws and nothing is produced (fail closed). Every envelope carries
/// a fresh 16-byte frame id and the timestamp it was sealed at, is signed with the device key
/// and MAC'd under the sibling channel key inside, and is sealed to the recipient's envelope key
/// with a fresh ephemeral key (all randomness from `entropy`). `sealFrame` under a session
/// policy holds the same checks and sends on a session (`SessionSender`) once the sibling
/// answered its hello: a counter and an AEAD tag instead. Given the opener of the device's own
/// gate (`replies`), its hellos are pair hellos, each carrying the frame it goes out with, and
/// the reply session an accept opens is filed in that opener before anything else is handled,
/// so one handshake per sibling pair opens both directions. Not `Sendable`: it draws from its
/// entropy source; a host keeps it in one isolation domain (`SealedTransport`).
public struct EnvelopeSealer {
    /// This device's keys; nil when it has none.
    public let keys: EnvelopeKeys?
    /// The siblings it may seal to (it grows through `learn`).
    public private(set) var roster: SiblingRoster
    private let entropy: EntropySource
    private var sessions: SessionSender?
    private let replies: EnvelopeOpener?

    /// A sealer for the device holding `keys` (nil: a device without key material, which seals
    /// nothing) with the siblings of `roster`; under `sessions` (the same policy as the device's
    /// gate), `sealFrame` sends on envelope sessions once their handshakes are answered, and
    /// with `replies` (that gate's opener) each handshake opens the sibling's sessions to this
    /// device too.
    public init(keys: EnvelopeKeys?, roster: SiblingRoster, entropy: EntropySource = .system, sessions: SessionPolicy? = nil,
                replies: EnvelopeOpener? = nil) {
        self.keys = keys
        self.roster = roster
        self.entropy = entropy
        self.sessions = sessions.map { SessionSender(policy: $0) }
        self.replies = replies
    }

    /// Whether frames to `device` go through a session at `now`.
    public func hasSession(to device: DeviceID, now: Int64) -> Bool {
        sessions?.hasSession(to: device, now: now) ?? false
    }

    /// The envelopes that carry `frame` to `recipient` at `now` with `wake`, in publishing order:
    /// without a session policy the whole envelope `seal` makes; with one, a hello first when a
    /// session to `recipient` is due (none is usable, or the one in use nears its end, and no
    /// hello is waiting for its answer), then the frame in a session envelope when a session is
    /// usable, in a whole envelope otherwise. A pair hello carries the frame in its own envelope
    /// (with the frame's wake class) when the two fit within `SyncFrame.maxFrameBytes`. Throws as
    /// `seal` does, before anything is drawn.
    public mutating func sealFrame(_ frame: [UInt8], to recipient: DeviceID, now: Int64,
                                   wake: WakeClass = .silent) throws(SyncKernelError) -> [SealedEnvelope] {
        guard var sender = sessions else { return [try seal(frame, to: recipient, now: now, wake: wake)] }
        guard let keys else { throw SyncKernelError(.keyMaterialMissing, "this device holds no account keys") }
        try sealable(frame, to: recipient, now: now, keys: keys)
        var envelopes: [SealedEnvelope] = []
        if let hello = dueHello(&sender, to: recipient, now: now) {
            let short = sender.helloIsShort(to: recipient)
            if hello.replyIndex != nil, SessionMessage.pairHelloBytes + frame.count <= SyncFrame.maxFrameBytes {
                sessions = sender
                return [try sealHandshake(.hello(hello.carrying(frame)), to: recipient, now: now, wake: wake, short: short)]
            }
            envelopes.append(try sealHandshake(.hello(hello), to: recipient, now: now, wake: .silent, short: short))
        }
        if let bytes = sender.seal(frame, to: recipient, wake: wake, now: now) {
            envelopes.append(SealedEnvelope(subject: try keys.subject(of: recipient), wake: wake, bytes: bytes))
        } else {
            envelopes.append(try seal(frame, to: recipient, now: now, wake: wake))
        }
        sessions = sender
        return envelopes
    }

    /// Takes in a handshake message a sibling sent this device (the frame of a whole envelope the
    /// gate accepted from `device`) at `now`: an accept answering this sealer's waiting hello
    /// opens the session frames to `device` go through from now on (and, for a pair hello, files
    /// the reply session in `replies`); a hello notes the epoch its sender speaks for (a session
    /// accepted under another one ends) and ends a reply session its earlier pair hello opened
    /// (its accept may have been lost). Returns whether a session opened.
    package mutating func receive(_ message: SessionMessage, from device: DeviceID, now: Int64) -> Bool {
        guard let keys, var sender = sessions else { return false }
        defer { sessions = sender }
        switch message {
        case .hello(let hello):
            sender.observe(epoch: hello.epoch, of: device)
            sender.helloArrived(from: device)
            return false
        case .accept(let accept):
            sender.observe(epoch: accept.epoch, of: device)
            guard case .opened(let reply) = sender.complete(accept, from: device, keys: keys, now: now) else { return false }
            if let reply { replies?.fileReply(key: reply.key, at: reply.index, from: device, now: now) }
            return true
        }
    }

    /// Takes in that `reply.sibling` was seen sending on the reply session of this sealer's
    /// waiting pair hello whose accept never came: the hello to send it again now (a pair hello
    /// carrying no frame, in a whole envelope), once per hello; nil otherwise.
    package mutating func replyLost(_ reply: AwaitedReply, now: Int64) throws(SyncKernelError) -> SealedEnvelope? {
        let device = reply.sibling
        guard var sender = sessions, sender.replyLost(from: device, index: reply.index) else { return nil }
        let hello = dueHello(&sender, to: device, now: now)
        sessions = sender
        guard let hello else { return nil }
        return try sealHandshake(.hello(hello), to: device, now: now, wake: .silent, short: sender.helloIsShort(to: device))
    }

    /// Seals the handshake `message` to `recipient` at `now`: in a short handshake envelope
    /// (`HandshakeFormat`) when `short`, in a whole envelope otherwise. Throws as `seal` does.
    package func sealHandshake(_ message: SessionMessage, to recipient: DeviceID, now: Int64, wake: WakeClass,
                               short: Bool) throws(SyncKernelError) -> SealedEnvelope {
        let bytes = message.encoded()
        guard short else { return try seal(bytes, to: recipient, now: now, wake: wake) }
        guard let keys else { throw SyncKernelError(.keyMaterialMissing, "this device holds no account keys") }
        let sibling = try sealable(bytes, to: recipient, now: now, keys: keys)
        guard let envelope = HandshakeFormat.seal(bytes, from: keys, to: sibling, timestamp: now, wake: wake,
                                                  ephemeralSecret: entropy.bytes(Sodium.keyBytes)) else {
            throw SyncKernelError(.keyMaterialMissing, "a key of the wrong size")
        }
        return SealedEnvelope(subject: try keys.subject(of: recipient), wake: wake, bytes: envelope)
    }

    /// The hello `sender` has due to `recipient` at `now`, if any: a pair hello whose reply index
    /// `replies` reserved, when this sealer has its gate's opener.
    private func dueHello(_ sender: inout SessionSender, to recipient: DeviceID, now: Int64) -> SessionMessage.Hello? {
        let replies = self.replies
        return sender.helloIfDue(to: recipient, now: now, entropy: entropy, reserve: { replies?.reserveReply(for: recipient) })
    }

    /// Sends on the session `device`'s pair `hello` reserved from now on (`now`), keyed `key`
    /// (`EnvelopeOpener.acceptSession`'s reply key), once the accept that answers it is
    /// published.
    package mutating func openReply(to device: DeviceID, for hello: SessionMessage.Hello, key: [UInt8], now: Int64) {
        sessions?.openReply(to: device, for: hello, key: key, now: now)
    }

    /// Adds a sibling the gate learned (`EnvelopeGate.drainLearned()`); a certificate the
    /// account did not issue throws `invalidCertificate` and changes nothing.
    public mutating func learn(_ certificate: SenderCertificate) throws(SyncKernelError) {
        guard let keys else { throw SyncKernelError(.keyMaterialMissing, "this device holds no account keys") }
        roster = try roster.adding(certificate, for: keys)
    }

    /// Seals `frame` to `recipient` at `now` (milliseconds since 1970), marked with `wake`
    /// (`silent` for every frame but the first snapshot request to a sibling).
    ///
    /// Throws `keyMaterialMissing` without keys, `unknownSibling` for a device outside the
    /// roster, `limitExceeded` for a frame over `SyncFrame.maxFrameBytes`, `invalidCertificate`
    /// once this device's certificate has expired.
    public func seal(_ frame: [UInt8], to recipient: DeviceID, now: Int64,
                     wake: WakeClass = .silent) throws(SyncKernelError) -> SealedEnvelope {
        guard let keys else { throw SyncKernelError(.keyMaterialMissing, "this device holds no account keys") }
        let sibling = try sealable(frame, to: recipient, now: now, keys: keys)
        guard let inside = EnvelopeFormat.inside(certificate: keys.certificate, recipient: recipient,
                                                 frameID: entropy.bytes(EnvelopeFormat.frameIDBytes), timestamp: now, frame: frame,
                                                 signingKey: keys.deviceKeys.signing.secretKey, macKey: keys.channel.mac),
              let box = Sodium.seal(inside, to: sibling.envelopeKey, ephemeralSeed: entropy.bytes(Sodium.keyBytes)) else {
            throw SyncKernelError(.keyMaterialMissing, "a key of the wrong size")
        }
        return SealedEnvelope(subject: try keys.subject(of: recipient), wake: wake,
                              bytes: [EnvelopeFormat.version, wake.rawValue] + box)
    }

    /// The recipient's certificate, after the checks every frame passes before it is sealed:
    /// a sibling, a frame within `SyncFrame.maxFrameBytes`, this device's certificate unexpired.
    @discardableResult
    private func sealable(_ frame: [UInt8], to recipient: DeviceID, now: Int64,
                          keys: EnvelopeKeys) throws(SyncKernelError) -> SenderCertificate {
        guard let sibling = roster.certificate(of: recipient) else { throw SyncKernelError(.unknownSibling) }
        guard frame.count <= SyncFrame.maxFrameBytes else { throw SyncKernelError(.limitExceeded, "frame too large to seal") }
        guard !keys.certificate.isExpired(atMillis: now) else {
            throw SyncKernelError(.invalidCertificate, "this device's certificate has expired")
        }
        return sibling
    }
}
