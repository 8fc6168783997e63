import CSHA256
import CSodium

/// SHA-256 with domain separation built in: on the processor's SHA extensions where it has them
/// (`CSHA256`, about six times libsodium's portable code on this machine's kind), else through
/// libsodium.
///
/// Invariant: every hash the kernel commits to is `SHA-256(len(domain) ‖ domain ‖ parts...)`,
/// so two different domains can never produce the same input bytes; both implementations give
/// the same digest for every input (a test compares them over seeded inputs of every length up
/// to several blocks, split at every point).
public enum SHA256 {
    /// Length of a digest in bytes.
    public static let byteCount = 32

    /// Initialises libsodium once; safe to call from any thread, any number of times.
    public static let ready: Bool = sodium_init() >= 0

    /// Hashes `parts` in order under `domain`.
    public static func hash(domain: [UInt8], _ parts: [UInt8]...) -> [UInt8] {
        hash(domain: domain, parts: parts)
    }

    /// Whether this processor runs the SHA extensions (checked once).
    package static let hasExtensions = csha256_available() == 1

    /// Hashes `parts` in order under `domain`.
    public static func hash(domain: [UInt8], parts: [[UInt8]]) -> [UInt8] {
        guard hasExtensions else { return portableHash(domain: domain, parts: parts) }
        var state = csha256_state()
        csha256_init(&state)
        var length = UInt8(truncatingIfNeeded: domain.count)
        csha256_update(&state, &length, 1)
        csha256_update(&state, domain, domain.count)
        for part in parts {
            csha256_update(&state, part, part.count)
        }
        var out = [UInt8](repeating: 0, count: byteCount)
        csha256_final(&state, &out)
        return out
    }

    /// `hash(domain:parts:)` through libsodium's portable code, whatever the processor.
    package static func portableHash(domain: [UInt8], parts: [[UInt8]]) -> [UInt8] {
        precondition(ready, "libsodium failed to initialise")
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        var length = UInt8(truncatingIfNeeded: domain.count)
        crypto_hash_sha256_update(&state, &length, 1)
        crypto_hash_sha256_update(&state, domain, UInt64(domain.count))
        for part in parts {
            crypto_hash_sha256_update(&state, part, UInt64(part.count))
        }
        var out = [UInt8](repeating: 0, count: byteCount)
        crypto_hash_sha256_final(&state, &out)
        return out
    }
}
