import SyncKernel

/// Seals frames to siblings: each frame to exactly one sibling, with sealed sender.
///
/// Invariants: `seal` returns an envelope only with key material, to a sibling of the roster,
/// for a frame within `SyncFrame.maxFrameBytes`, under this device's own certificate while it is
/// unexpired; anything else throws and nothing is produced (fail closed). Every envelope carries
/// a fresh 16-byte frame id and the timestamp it was sealed at, is signed with the device key
/// and MAC'd under the sibling channel key inside, and is sealed to the recipient's envelope key
/// with a fresh ephemeral key (all randomness from `entropy`). Not `Sendable`: it draws from its
/// entropy source; a host keeps it in one isolation domain (`SealedTransport`).
public struct EnvelopeSealer {
    /// This device's keys; nil when it has none.
    public let keys: EnvelopeKeys?
    /// The siblings it may seal to (it grows through `learn`).
    public private(set) var roster: SiblingRoster
    private let entropy: EntropySource

    /// A sealer for the device holding `keys` (nil: a device without key material, which seals
    /// nothing) with the siblings of `roster`.
    public init(keys: EnvelopeKeys?, roster: SiblingRoster, entropy: EntropySource = .system) {
        self.keys = keys
        self.roster = roster
        self.entropy = entropy
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
        guard let sibling = roster.certificate(of: recipient) else { throw SyncKernelError(.unknownSibling) }
        guard frame.count <= SyncFrame.maxFrameBytes else { throw SyncKernelError(.limitExceeded, "frame too large to seal") }
        guard !keys.certificate.isExpired(atMillis: now) else {
            throw SyncKernelError(.invalidCertificate, "this device's certificate has expired")
        }
        guard let inside = EnvelopeFormat.inside(certificate: keys.certificate, recipient: recipient,
                                                 frameID: entropy.bytes(EnvelopeFormat.frameIDBytes), timestamp: now, frame: frame,
                                                 signingKey: keys.deviceKeys.signing.secretKey, macKey: keys.channel.mac),
              let box = Sodium.seal(inside, to: sibling.envelopeKey, ephemeralSeed: entropy.bytes(Sodium.keyBytes)) else {
            throw SyncKernelError(.keyMaterialMissing, "a key of the wrong size")
        }
        return SealedEnvelope(subject: try keys.subject(of: recipient), wake: wake,
                              bytes: [EnvelopeFormat.version, wake.rawValue] + box)
    }
}
