import CSodium
import SyncKernel

/// One snapshot's AEAD: its algorithm, fresh random key and base nonce, sealing and opening the
/// chunks of `SealedBlobFormat` through libsodium.
///
/// Invariants: the key and nonce have the algorithm's sizes (checked at creation,
/// `limitExceeded`); AES-256-GCM is used only on a machine that runs it (`unsupportedAlgorithm`
/// otherwise, before any call into it); `open` returns nil, writing nothing out, for a chunk that
/// does not authenticate. Never shown: no rendering carries the key.
struct SnapshotCipher: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let algorithm: SealingAlgorithm
    private let key: [UInt8]
    private let nonce: [UInt8]

    /// A cipher under `key` and base `nonce`.
    init(algorithm: SealingAlgorithm, key: [UInt8], nonce: [UInt8]) throws {
        guard key.count == SealingAlgorithm.keyBytes, nonce.count == algorithm.nonceBytes else {
            throw SyncKernelError(.limitExceeded, "a key or nonce of the wrong size")
        }
        guard algorithm.isAvailable else { throw SnapshotTransferError(.unsupportedAlgorithm, "\(algorithm) does not run here") }
        self.algorithm = algorithm
        self.key = key
        self.nonce = nonce
    }

    /// Chunk `index` of `plaintext` sealed (ciphertext and tag), under associated data `data`.
    func seal(_ plaintext: ArraySlice<UInt8>, index: Int64, data: [UInt8]) throws -> [UInt8] {
        let chunkNonce = SealedBlobFormat.nonce(nonce, index: index)
        var out = [UInt8](repeating: 0, count: plaintext.count + SealingAlgorithm.tagBytes)
        var written: UInt64 = 0
        let status = plaintext.withUnsafeBufferPointer { buffer -> Int32 in
            switch algorithm {
            case .xChaCha20Poly1305:
                crypto_aead_xchacha20poly1305_ietf_encrypt(&out, &written, buffer.baseAddress, UInt64(buffer.count), data,
                                                           UInt64(data.count), nil, chunkNonce, key)
            case .aes256GCM:
                crypto_aead_aes256gcm_encrypt(&out, &written, buffer.baseAddress, UInt64(buffer.count), data, UInt64(data.count),
                                              nil, chunkNonce, key)
            }
        }
        guard status == 0, written == UInt64(out.count) else { throw SnapshotTransferError(.unsupportedAlgorithm, "sealing failed") }
        return out
    }

    /// The plaintext of chunk `index` (ciphertext and tag), nil when it does not authenticate
    /// under associated data `data`.
    func open(_ sealed: ArraySlice<UInt8>, index: Int64, data: [UInt8]) -> [UInt8]? {
        guard sealed.count >= SealingAlgorithm.tagBytes else { return nil }
        let chunkNonce = SealedBlobFormat.nonce(nonce, index: index)
        var out = [UInt8](repeating: 0, count: sealed.count - SealingAlgorithm.tagBytes)
        var written: UInt64 = 0
        let status = sealed.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            switch algorithm {
            case .xChaCha20Poly1305:
                return crypto_aead_xchacha20poly1305_ietf_decrypt(&out, &written, nil, base, UInt64(buffer.count), data,
                                                                  UInt64(data.count), chunkNonce, key)
            case .aes256GCM:
                return crypto_aead_aes256gcm_decrypt(&out, &written, nil, base, UInt64(buffer.count), data,
                                                     UInt64(data.count), chunkNonce, key)
            }
        }
        guard status == 0, written == UInt64(out.count) else { return nil }
        return out
    }

    /// The algorithm only; the key is never shown.
    var description: String { "SnapshotCipher(\(algorithm), key redacted)" }

    /// The same as `description`.
    var debugDescription: String { description }

    /// A mirror with no children.
    var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
