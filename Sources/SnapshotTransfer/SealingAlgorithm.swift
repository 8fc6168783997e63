import CSodium
import SyncKernel

/// The AEAD a snapshot is sealed with, recorded in the offer and in the sealed blob's header.
///
/// Invariants: the raw value is the byte both carry (1 XChaCha20-Poly1305, 2 AES-256-GCM), and a
/// byte this build does not know is refused (`unsupportedAlgorithm`); XChaCha20-Poly1305 runs on
/// every machine, so every requester accepts it and a sibling can always answer; AES-256-GCM
/// (libsodium's, which needs the CPU's AES and carry-less multiply instructions) is chosen only
/// when the sealing machine has them and the requester said it can open it.
public enum SealingAlgorithm: UInt8, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// XChaCha20-Poly1305 (IETF), 24-byte nonces.
    case xChaCha20Poly1305 = 1
    /// AES-256-GCM, 12-byte nonces.
    case aes256GCM = 2

    /// Bytes of a key: 32 for both.
    public static let keyBytes = 32
    /// Bytes of an authentication tag: 16 for both.
    public static let tagBytes = 16

    /// Bytes of this algorithm's nonce.
    public var nonceBytes: Int {
        switch self {
        case .xChaCha20Poly1305: Int(crypto_aead_xchacha20poly1305_ietf_npubbytes())
        case .aes256GCM: Int(crypto_aead_aes256gcm_npubbytes())
        }
    }

    /// The algorithm's bit in a request's `accepts` set.
    var acceptBit: UInt8 { 1 << (rawValue - 1) }

    /// Whether this machine runs libsodium's AES-256-GCM (`crypto_aead_aes256gcm_is_available`).
    public static var aesGCMAvailable: Bool {
        SHA256.ready && crypto_aead_aes256gcm_is_available() == 1
    }

    /// What this machine can open: XChaCha20-Poly1305 always, AES-256-GCM where it runs.
    public static var openable: Set<SealingAlgorithm> {
        aesGCMAvailable ? [.xChaCha20Poly1305, .aes256GCM] : [.xChaCha20Poly1305]
    }

    /// The algorithm to seal with for a requester that opens `accepted`, on a machine that
    /// does (`aesAvailable`) or does not run AES-256-GCM: AES-256-GCM when both can, otherwise
    /// XChaCha20-Poly1305.
    public static func choose(accepted: Set<SealingAlgorithm>, aesAvailable: Bool) -> SealingAlgorithm {
        aesAvailable && accepted.contains(.aes256GCM) ? .aes256GCM : .xChaCha20Poly1305
    }

    /// Whether this machine can run the algorithm.
    public var isAvailable: Bool {
        self == .xChaCha20Poly1305 ? SHA256.ready : SealingAlgorithm.aesGCMAvailable
    }

    /// The algorithm's name.
    public var description: String {
        switch self {
        case .xChaCha20Poly1305: "XChaCha20-Poly1305"
        case .aes256GCM: "AES-256-GCM"
        }
    }
}
