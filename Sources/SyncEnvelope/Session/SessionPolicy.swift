import SyncKernel

/// How a device keeps envelope sessions with its siblings: after one handshake per sibling pair
/// (a pair hello, `EnvelopeSealer` given its gate's opener) or per sibling and direction (a
/// one-direction hello), frames travel with a counter and an AEAD tag instead of a certificate,
/// a signature, a MAC and a sealed box.
///
/// Invariants: one policy per run of a device, shared by its sealer and its gate (they must be
/// given the same value): `epoch` is 16 fresh random bytes naming this run's receiving sessions,
/// so a sibling that sees another epoch knows every session it had with this device is gone and
/// shakes hands again; the durations are positive (`init` clamps them to at least a second).
/// Nothing of a session is persisted, so no session outlives the run that made it.
public struct SessionPolicy: Sendable, Hashable {
    /// How long a sending session is used, milliseconds (default one hour); a new handshake
    /// starts `rekeyMarginMillis` before its end, and the old session carries frames until the
    /// new one is accepted.
    public let lifetimeMillis: Int64
    /// How long a receiver keeps accepting a session beyond its lifetime (default five minutes),
    /// for frames sealed just before the sender's clock said it ended.
    public let graceMillis: Int64
    /// How long a handshake may wait for its answer before another is sent, milliseconds
    /// (default ten seconds); frames go as whole envelopes meanwhile.
    public let handshakeTimeoutMillis: Int64
    /// Names this run's receiving sessions (16 random bytes).
    public let epoch: [UInt8]
    /// Whether hellos and the accepts that answer them go in short handshake envelopes
    /// (`HandshakeFormat`, 66 bytes beside the message instead of a whole envelope's 372) to
    /// siblings whose certificates the roster holds (default true); a hello left unanswered for
    /// the handshake timeout goes whole after it.
    public let shortHandshakes: Bool

    /// Bytes of an epoch.
    package static let epochBytes = 16
    /// How long before its end a sending session is renewed.
    package var rekeyMarginMillis: Int64 { min(lifetimeMillis / 10, 60_000) }

    /// A policy with a fresh epoch from `entropy`, the given durations (milliseconds, each at
    /// least 1,000) and handshake form.
    public init(entropy: EntropySource = .system, lifetimeMillis: Int64 = 3_600_000, graceMillis: Int64 = 300_000,
                handshakeTimeoutMillis: Int64 = 10_000, shortHandshakes: Bool = true) {
        epoch = entropy.bytes(SessionPolicy.epochBytes)
        self.shortHandshakes = shortHandshakes
        self.lifetimeMillis = max(1_000, lifetimeMillis)
        self.graceMillis = max(1_000, graceMillis)
        self.handshakeTimeoutMillis = max(1_000, handshakeTimeoutMillis)
    }
}
