import CSodium
import SyncKernel

/// The libsodium primitives the envelopes use, with their sizes, behind byte-array signatures.
///
/// Invariants: every function checks its key and output sizes itself (a wrong size returns nil
/// or false, never reads out of bounds); verification is constant-time where libsodium's is
/// (`crypto_sign_verify_detached`, `crypto_auth_verify`, `sodium_memcmp`); libsodium is
/// initialised (`SHA256.ready`) before any call.
package enum Sodium {
    /// An Ed25519 public key, a KDF master key, a channel key, an X25519 key: 32 bytes.
    package static let keyBytes = 32
    /// An Ed25519 signature.
    package static let signatureBytes = Int(crypto_sign_bytes())
    /// What a sealed box adds to its plaintext: the ephemeral public key and the box's MAC.
    package static let sealBytes = Int(crypto_box_sealbytes())
    /// An HMAC-SHA-512-256 tag (`crypto_auth`).
    package static let authBytes = Int(crypto_auth_bytes())
    /// A SipHash-2-4 key (`crypto_shorthash`).
    package static let shortHashKeyBytes = Int(crypto_shorthash_keybytes())

    /// The Ed25519 public and secret keys of a 32-byte seed.
    package static func signingKeyPair(seed: [UInt8]) -> (publicKey: [UInt8], secretKey: [UInt8])? {
        guard SHA256.ready, seed.count == Int(crypto_sign_seedbytes()) else { return nil }
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_sign_publickeybytes()))
        var secretKey = [UInt8](repeating: 0, count: Int(crypto_sign_secretkeybytes()))
        guard crypto_sign_seed_keypair(&publicKey, &secretKey, seed) == 0 else { return nil }
        return (publicKey, secretKey)
    }

    /// The detached Ed25519 signature of `message` under a 64-byte libsodium secret key.
    package static func sign(_ message: [UInt8], secretKey: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, secretKey.count == Int(crypto_sign_secretkeybytes()) else { return nil }
        var signature = [UInt8](repeating: 0, count: signatureBytes)
        guard crypto_sign_detached(&signature, nil, message, UInt64(message.count), secretKey) == 0 else { return nil }
        return signature
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` under `publicKey`.
    package static func verify(_ signature: [UInt8], of message: [UInt8], publicKey: [UInt8]) -> Bool {
        guard SHA256.ready, signature.count == signatureBytes, publicKey.count == keyBytes else { return false }
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    /// The X25519 public key of a 32-byte secret key.
    package static func envelopePublicKey(secretKey: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, secretKey.count == Int(crypto_box_secretkeybytes()) else { return nil }
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_box_publickeybytes()))
        guard crypto_scalarmult_base(&publicKey, secretKey) == 0 else { return nil }
        return publicKey
    }

    /// Subkey `id` of `key` under the 8-character `context` (`crypto_kdf_derive_from_key`).
    package static func deriveKey(from key: [UInt8], id: UInt64, context: StaticString, count: Int = keyBytes) -> [UInt8]? {
        guard SHA256.ready, key.count == Int(crypto_kdf_keybytes()), context.utf8CodeUnitCount == Int(crypto_kdf_contextbytes()),
              count >= Int(crypto_kdf_bytes_min()), count <= Int(crypto_kdf_bytes_max()) else { return nil }
        var subkey = [UInt8](repeating: 0, count: count)
        let status = context.withUTF8Buffer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters -> Int32 in
                guard let base = characters.baseAddress else { return -1 }
                return crypto_kdf_derive_from_key(&subkey, count, id, base, key)
            }
        }
        return status == 0 ? subkey : nil
    }

    /// BLAKE2b of `input` keyed with `key`, `count` bytes long (`crypto_generichash`).
    package static func keyedHash(_ input: [UInt8], key: [UInt8], count: Int) -> [UInt8]? {
        guard SHA256.ready, count >= Int(crypto_generichash_bytes_min()), count <= Int(crypto_generichash_bytes_max()),
              key.count >= Int(crypto_generichash_keybytes_min()), key.count <= Int(crypto_generichash_keybytes_max()) else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        guard crypto_generichash(&out, count, input, UInt64(input.count), key, key.count) == 0 else { return nil }
        return out
    }

    /// SipHash-2-4 of `input` under a 16-byte `key` (`crypto_shorthash`), or nil for another key
    /// size. Cheap, and unpredictable to whoever lacks the key: a fingerprint, not a MAC.
    package static func shortHash(_ input: [UInt8], key: [UInt8]) -> UInt64? {
        guard SHA256.ready, key.count == shortHashKeyBytes else { return nil }
        var out = [UInt8](repeating: 0, count: Int(crypto_shorthash_bytes()))
        guard crypto_shorthash(&out, input, UInt64(input.count), key) == 0 else { return nil }
        return out.reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A sealed box of `plaintext` to the X25519 key `recipient`, in libsodium's format
    /// (`crypto_box_seal_open` opens it): an ephemeral key pair from `ephemeralSeed` (32 fresh
    /// random bytes), the nonce BLAKE2b-192 of the ephemeral and the recipient's public keys,
    /// and `crypto_box_easy` under the ephemeral secret key. The seed is drawn by the caller so
    /// a seeded test can repeat a seal byte for byte.
    package static func seal(_ plaintext: [UInt8], to recipient: [UInt8], ephemeralSeed: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, recipient.count == Int(crypto_box_publickeybytes()),
              ephemeralSeed.count == Int(crypto_box_seedbytes()) else { return nil }
        var ephemeralPublic = [UInt8](repeating: 0, count: Int(crypto_box_publickeybytes()))
        var ephemeralSecret = [UInt8](repeating: 0, count: Int(crypto_box_secretkeybytes()))
        guard crypto_box_seed_keypair(&ephemeralPublic, &ephemeralSecret, ephemeralSeed) == 0 else { return nil }
        defer { sodium_memzero(&ephemeralSecret, ephemeralSecret.count) }
        var nonce = [UInt8](repeating: 0, count: Int(crypto_box_noncebytes()))
        let keys = ephemeralPublic + recipient
        guard crypto_generichash(&nonce, nonce.count, keys, UInt64(keys.count), nil, 0) == 0 else { return nil }
        var box = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_box_macbytes()))
        guard crypto_box_easy(&box, plaintext, UInt64(plaintext.count), nonce, recipient, ephemeralSecret) == 0 else { return nil }
        return ephemeralPublic + box
    }

    /// The plaintext of a sealed box to the key pair `publicKey`/`secretKey`, or nil when it
    /// does not open (another recipient, damaged, too short).
    package static func open(_ sealed: ArraySlice<UInt8>, publicKey: [UInt8], secretKey: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, sealed.count >= sealBytes, publicKey.count == Int(crypto_box_publickeybytes()),
              secretKey.count == Int(crypto_box_secretkeybytes()) else { return nil }
        var plaintext = [UInt8](repeating: 0, count: sealed.count - sealBytes)
        let status = sealed.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return crypto_box_seal_open(&plaintext, base, UInt64(buffer.count), publicKey, secretKey)
        }
        return status == 0 ? plaintext : nil
    }

    /// The HMAC-SHA-512-256 tag of `message` (not empty) under a 32-byte key (`crypto_auth`).
    package static func authenticate(_ message: ArraySlice<UInt8>, key: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, key.count == Int(crypto_auth_keybytes()) else { return nil }
        var tag = [UInt8](repeating: 0, count: authBytes)
        let status = message.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return crypto_auth(&tag, base, UInt64(buffer.count), key)
        }
        return status == 0 ? tag : nil
    }

    /// Whether `tag` authenticates `message` (not empty) under `key`, compared in constant time.
    package static func verifyTag(_ tag: ArraySlice<UInt8>, of message: ArraySlice<UInt8>, key: [UInt8]) -> Bool {
        guard SHA256.ready, tag.count == authBytes, key.count == Int(crypto_auth_keybytes()) else { return false }
        let status = tag.withUnsafeBufferPointer { tagBuffer -> Int32 in
            message.withUnsafeBufferPointer { buffer -> Int32 in
                guard let tagBase = tagBuffer.baseAddress, let base = buffer.baseAddress else { return -1 }
                return crypto_auth_verify(tagBase, base, UInt64(buffer.count), key)
            }
        }
        return status == 0
    }

    /// A ChaCha20-Poly1305 (IETF) key.
    package static let aeadKeyBytes = Int(crypto_aead_chacha20poly1305_ietf_keybytes())
    /// What ChaCha20-Poly1305 adds to its plaintext: the Poly1305 tag.
    package static let aeadTagBytes = Int(crypto_aead_chacha20poly1305_ietf_abytes())

    /// The X25519 shared secret of `secretKey` and a peer's `publicKey`
    /// (`crypto_scalarmult`); nil for a key of the wrong size or a peer key of small order,
    /// whose secret would be all zeros (libsodium refuses it).
    package static func sharedSecret(secretKey: [UInt8], publicKey: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, secretKey.count == Int(crypto_scalarmult_scalarbytes()),
              publicKey.count == Int(crypto_scalarmult_bytes()) else { return nil }
        var shared = [UInt8](repeating: 0, count: Int(crypto_scalarmult_bytes()))
        guard crypto_scalarmult(&shared, secretKey, publicKey) == 0 else { return nil }
        return shared
    }

    /// ChaCha20-Poly1305 (IETF) of `plaintext` under `key` with the nonce of `counter` (four zero
    /// bytes, then the counter big-endian), authenticating `associated` too: the ciphertext and
    /// its 16-byte tag. A key must never meet one counter twice (the caller's duty).
    package static func aeadSeal(_ plaintext: [UInt8], associated: ArraySlice<UInt8>, counter: UInt64, key: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, key.count == aeadKeyBytes else { return nil }
        let nonce = aeadNonce(counter)
        var sealed = [UInt8](repeating: 0, count: plaintext.count + aeadTagBytes)
        var written: UInt64 = 0
        let status = associated.withUnsafeBufferPointer { ad -> Int32 in
            crypto_aead_chacha20poly1305_ietf_encrypt(&sealed, &written, plaintext, UInt64(plaintext.count),
                                                      ad.baseAddress, UInt64(ad.count), nil, nonce, key)
        }
        return status == 0 && written == UInt64(sealed.count) ? sealed : nil
    }

    /// The plaintext of `sealed` (ciphertext then tag) under `key` and `counter`'s nonce with
    /// `associated`; nil when the tag does not verify (altered bytes, another key or counter) or
    /// it is shorter than a tag. Verification is libsodium's, in constant time.
    package static func aeadOpen(_ sealed: ArraySlice<UInt8>, associated: ArraySlice<UInt8>, counter: UInt64, key: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, key.count == aeadKeyBytes, sealed.count >= aeadTagBytes else { return nil }
        let nonce = aeadNonce(counter)
        var plaintext = [UInt8](repeating: 0, count: sealed.count - aeadTagBytes)
        var written: UInt64 = 0
        let status = sealed.withUnsafeBufferPointer { input -> Int32 in
            associated.withUnsafeBufferPointer { ad -> Int32 in
                guard let base = input.baseAddress else { return -1 }
                return crypto_aead_chacha20poly1305_ietf_decrypt(&plaintext, &written, nil, base, UInt64(input.count),
                                                                 ad.baseAddress, UInt64(ad.count), nonce, key)
            }
        }
        return status == 0 && written == UInt64(plaintext.count) ? plaintext : nil
    }

    /// The 12-byte IETF nonce of a counter: four zero bytes, then the counter big-endian.
    private static func aeadNonce(_ counter: UInt64) -> [UInt8] {
        [0, 0, 0, 0] + withUnsafeBytes(of: counter.bigEndian) { Array($0) }
    }

    /// Whether two byte strings of one length are equal, compared in constant time.
    package static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return sodium_memcmp(lhs, rhs, lhs.count) == 0
    }
}
