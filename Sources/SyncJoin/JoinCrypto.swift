import CSodium
import SyncEnvelope
import SyncKernel

/// The one libsodium primitive the join replies add to those of `Sodium`: the authenticated box
/// (`crypto_box_easy`, X25519 + XSalsa20-Poly1305) between two known key pairs.
///
/// Invariants: every function checks its key, nonce and input sizes itself (a wrong size returns
/// nil, never reads out of bounds); a box opens only with the secret key of one side and the
/// public key of the other, so a reply that opens was made by a holder of the account's
/// discovery secret key (or of the requester's ephemeral secret key, which never leaves it);
/// libsodium is initialised (`SHA256.ready`) before any call.
package enum JoinCrypto {
    /// A box nonce: 24 bytes, drawn fresh for every box.
    package static let nonceBytes = Int(crypto_box_noncebytes())
    /// What a box adds to its plaintext: the Poly1305 tag.
    package static let macBytes = Int(crypto_box_macbytes())

    /// The box of `plaintext` from the secret key `secretKey` to the public key `recipient`
    /// under `nonce`.
    package static func box(_ plaintext: [UInt8], nonce: [UInt8], to recipient: [UInt8], from secretKey: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, nonce.count == nonceBytes, recipient.count == Int(crypto_box_publickeybytes()),
              secretKey.count == Int(crypto_box_secretkeybytes()) else { return nil }
        var box = [UInt8](repeating: 0, count: plaintext.count + macBytes)
        guard crypto_box_easy(&box, plaintext, UInt64(plaintext.count), nonce, recipient, secretKey) == 0 else { return nil }
        return box
    }

    /// The plaintext of a box from the public key `sender` to the secret key `secretKey`, or nil
    /// when it does not open (another key on either side, altered, too short).
    package static func open(_ box: ArraySlice<UInt8>, nonce: [UInt8], from sender: [UInt8], to secretKey: [UInt8]) -> [UInt8]? {
        guard SHA256.ready, box.count >= macBytes, nonce.count == nonceBytes, sender.count == Int(crypto_box_publickeybytes()),
              secretKey.count == Int(crypto_box_secretkeybytes()) else { return nil }
        var plaintext = [UInt8](repeating: 0, count: box.count - macBytes)
        let status = box.withUnsafeBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return -1 }
            return crypto_box_open_easy(&plaintext, base, UInt64(buffer.count), nonce, sender, secretKey)
        }
        return status == 0 ? plaintext : nil
    }
}
