import Foundation
import SyncEnvelope
import SyncKernel

/// The junk envelopes `synckernel bench-flood` publishes, one kind per gate drop reason, each
/// built the way an attacker on the relay could build it (random bytes, or sealed with keys it
/// holds), so each one reaches the gate check its reason names and no further.
///
/// Invariant: every envelope of a kind is dropped by the receiving device's gate under exactly
/// that kind's reason (`expected`); the frame ids are fresh per envelope except for `replayed`,
/// whose copies repeat one accepted envelope.
struct FloodJunk {
    /// One kind of junk.
    enum Kind: String, CaseIterable {
        /// A wrong version byte (free check).
        case unknownFormat
        /// Shorter than the fixed overhead (free check).
        case truncated
        /// The right header, bytes the device's key does not open (one sealed-box open).
        case unopenable
        /// Sealed to the device by a stranger of another account (open, then the account check).
        case foreignAccount
        /// Sealed to the device under a sibling's certificate with the wrong channel key (open,
        /// certificate signature, MAC).
        case badMAC
        /// A copy of an envelope the device accepted (every check, the seen set last).
        case replayed

        /// The gate's reason for this kind.
        var expected: EnvelopeDropReason {
            switch self {
            case .unknownFormat: .unknownFormat
            case .truncated: .truncated
            case .unopenable: .unopenable
            case .foreignAccount: .foreignAccount
            case .badMAC: .badMAC
            case .replayed: .replayed
            }
        }

        /// Whether only the gate's free checks (length, version) see it.
        var isFree: Bool { self == .unknownFormat || self == .truncated }
    }

    private let target: EnvelopeKeys
    private let sender: EnvelopeKeys
    private let senderDevice: DeviceKeys
    private let sealer: EnvelopeSealer
    private let frame: [UInt8]

    /// Junk for the device holding `target`, forged where it needs keys with `sender`'s (a sibling
    /// of the same account) and `senderDevice`'s, carrying `frame`.
    init(target: EnvelopeKeys, sender: EnvelopeKeys, senderDevice: DeviceKeys, roster: SiblingRoster, frame: [UInt8]) {
        self.target = target
        self.sender = sender
        self.senderDevice = senderDevice
        sealer = EnvelopeSealer(keys: sender, roster: roster)
        self.frame = frame
    }

    /// `count` envelopes of `kind`; for `replayed`, `original` is the accepted envelope they copy.
    func envelopes(_ kind: Kind, count: Int, original: [UInt8]) throws(SyncKernelError) -> [[UInt8]] {
        let size = SealedEnvelope.overheadBytes + frame.count
        switch kind {
        case .unknownFormat:
            return (0..<count).map { _ in [9, 0] + Self.random(size - 2) }
        case .truncated:
            return (0..<count).map { _ in [1, 0] + Self.random(40) }
        case .unopenable:
            return (0..<count).map { _ in [1, 0] + Self.random(size - 2) }
        case .foreignAccount:
            let other = try AccountMaterial.generate()
            let stranger = try DeviceKeys.generate()
            let certificate = try other.issue(for: stranger, expiresAt: Int64(Date().timeIntervalSince1970) + 86_400)
            let mac = try ChannelKeys(accountSeed: other.seed).mac
            return try (0..<count).map { _ throws(SyncKernelError) in try forge(certificate: certificate, signer: stranger, macKey: mac) }
        case .badMAC:
            return try (0..<count).map { _ throws(SyncKernelError) in
                try forge(certificate: sender.certificate, signer: senderDevice, macKey: Self.random(32))
            }
        case .replayed:
            return Array(repeating: original, count: count)
        }
    }

    /// An envelope sealed to the target by this device: accepted once, replayed afterwards.
    func accepted() throws(SyncKernelError) -> [UInt8] {
        try sealer.seal(frame, to: target.device, now: Int64(Date().timeIntervalSince1970 * 1_000)).bytes
    }

    /// An inside built by hand under `certificate`, signed by `signer`, MACed with `macKey`, sealed to the target.
    private func forge(certificate: SenderCertificate, signer: DeviceKeys, macKey: [UInt8]) throws(SyncKernelError) -> [UInt8] {
        guard let inside = EnvelopeFormat.inside(certificate: certificate, recipient: target.device, frameID: Self.random(16),
                                                 timestamp: Int64(Date().timeIntervalSince1970 * 1_000), frame: frame,
                                                 signingKey: signer.signing.secretKey, macKey: macKey),
              let sealed = Sodium.seal(inside, to: target.certificate.envelopeKey, ephemeralSeed: Self.random(32)) else {
            throw SyncKernelError(.keyMaterialMissing, "a junk envelope could not be sealed")
        }
        return [1, 0] + sealed
    }

    /// `count` random bytes.
    static func random(_ count: Int) -> [UInt8] {
        (0..<max(0, count)).map { _ in UInt8.random(in: .min ... .max) }
    }
}
