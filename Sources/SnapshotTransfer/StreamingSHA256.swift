import CSodium
import SyncKernel

/// Plain SHA-256 (no domain) over bytes given piece by piece, through libsodium: the hash an
/// offer carries for its sealed blob.
///
/// Invariant: `finish()` is SHA-256 of every byte passed to `update`, in order, whatever the
/// pieces; the state is a value, so a copy hashes on independently.
package struct StreamingSHA256 {
    private var state = crypto_hash_sha256_state()
    /// Bytes hashed so far.
    package private(set) var count: Int64 = 0

    /// A fresh hash.
    package init() {
        precondition(SHA256.ready, "libsodium failed to initialise")
        crypto_hash_sha256_init(&state)
    }

    /// Hashes `bytes` next.
    package mutating func update(_ bytes: [UInt8]) {
        crypto_hash_sha256_update(&state, bytes, UInt64(bytes.count))
        count += Int64(bytes.count)
    }

    /// The digest of everything hashed (the hash is spent afterwards).
    package mutating func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: SHA256.byteCount)
        crypto_hash_sha256_final(&state, &out)
        return out
    }
}
