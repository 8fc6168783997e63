import SyncKernel

/// The short handshake envelope (outer version 3): a hello or an accept between two siblings that
/// hold each other's certificates, authenticated by their certified X25519 keys instead of a
/// certificate, a signature and a MAC on the wire. Written and read by hand.
///
///     0    1   format version (3)
///     1    1   wake class (`WakeClass`)
///     2    32  the envelope's ephemeral X25519 public key, fresh per envelope
///     34   8   the sender's reference (the first 8 bytes of its device id), masked
///     42   …   ChaCha20-Poly1305 (IETF) under the envelope key, nonce 0, associated data bytes
///              0..<42, of: the timestamp (8 bytes, milliseconds since 1970, big-endian), then the
///              session message (`SessionMessage`, "SKSN" first); its 16-byte tag last
///
/// With `e` the ephemeral secret, `E` its public key, `S` a device's certified envelope key and
/// `dh(x, Y)` X25519: the mask is the first 8 bytes of BLAKE2b-128 keyed with the account's sibling channel key over
/// the mask domain, `dh(e, S_recipient)`, `E` and `S_recipient`; the envelope key is BLAKE2b-256
/// keyed with the channel key over the key domain, `dh(e, S_recipient)`, `dh(S_sender,
/// S_recipient)`, `E`, both device ids and both certified keys.
///
/// Invariants: an envelope adds `overheadBytes` (66) to its message; only the recipient (holding
/// `S_recipient`'s secret) can unmask the reference or derive the key, and only the sender (or the
/// recipient) holds `dh(S_sender, S_recipient)`, so a tag that verifies proves the sender holds the
/// secret of the key its issuer-signed certificate names, addresses this recipient and belongs
/// to this account (a rotation of the channel key ends it), as a whole envelope's signature,
/// recipient field and MAC do; the relay sees the version, the wake class, a fresh random-looking
/// key and a masked reference, never which device sent it. Replays are the seen set's (the frame
/// id is the ephemeral key's first 16 bytes, the timestamp inside the tag). `open` reads nothing
/// beyond the envelope's bounds and refuses anything whose message does not start with the
/// session magic: this form carries handshakes only.
package enum HandshakeFormat {
    /// The outer format version of a short handshake envelope.
    package static let version: UInt8 = 3
    /// Bytes of the masked sender reference.
    package static let referenceBytes = 8
    /// Bytes before the ciphertext: version, wake class, ephemeral key, reference.
    package static let headerBytes = 2 + Sodium.keyBytes + referenceBytes
    /// Bytes of the timestamp inside.
    package static let timestampBytes = 8
    /// What an envelope adds to its message.
    package static let overheadBytes = headerBytes + timestampBytes + Sodium.aeadTagBytes
    /// The smallest envelope: an accept.
    package static let minBytes = overheadBytes + SessionMessage.helloBytes
    /// The largest envelope: a pair hello carrying the largest frame.
    package static let maxBytes = overheadBytes + SessionMessage.pairHelloBytes + SyncFrame.maxFrameBytes
    private static let maskDomain = Array("synckernel.handshake.mask.v1".utf8)
    private static let keyDomain = Array("synckernel.handshake.v1".utf8)

    /// What `open` found in an envelope.
    package struct Opened: Sendable, Hashable {
        /// The sender, a sibling of the roster.
        package let certificate: SenderCertificate
        /// The session message, unparsed beyond its magic.
        package let message: [UInt8]
        /// The frame id the seen set records (the ephemeral key's first 16 bytes).
        package let frameID: [UInt8]
        /// The sender's timestamp.
        package let timestamp: Int64
    }

    /// Why `open` refused an envelope.
    package enum Refusal: Error, Sendable, Hashable {
        /// The reference names no sibling of the roster (or this device).
        case unknownSender
        /// No key derived opens it: sealed to another device, by a device without the sibling's
        /// key, for another account, or damaged.
        case unopenable
        /// It opened, but its inside is not a timestamp and a session message.
        case malformed
    }

    /// The envelope of `message` (a session message's bytes) from the device holding `keys` to
    /// `recipient` at `timestamp` with `wake`, its ephemeral key from `ephemeralSecret`; nil for a
    /// message without the session magic, a key of the wrong size or of small order.
    package static func seal(_ message: [UInt8], from keys: EnvelopeKeys, to recipient: SenderCertificate, timestamp: Int64,
                             wake: WakeClass, ephemeralSecret: [UInt8]) -> [UInt8]? {
        guard SessionMessage.hasMagic(message), let ephemeral = Sodium.envelopePublicKey(secretKey: ephemeralSecret),
              let toRecipient = Sodium.sharedSecret(secretKey: ephemeralSecret, publicKey: recipient.envelopeKey),
              let statics = Sodium.sharedSecret(secretKey: keys.deviceKeys.envelopeSecretKey, publicKey: recipient.envelopeKey),
              let mask = mask(toRecipient, ephemeral: ephemeral, recipientKey: recipient.envelopeKey, channelKey: keys.channel.mac),
              let key = envelopeKey(toRecipient, statics: statics, ephemeral: ephemeral, sender: keys.device,
                                    senderKey: keys.deviceKeys.envelopePublicKey, recipient: recipient.device,
                                    recipientKey: recipient.envelopeKey, channelKey: keys.channel.mac) else { return nil }
        var head: [UInt8] = [version, wake.rawValue] + ephemeral
        head += zip(keys.device.publicKey.prefix(referenceBytes), mask).map { $0 ^ $1 }
        let inside = withUnsafeBytes(of: UInt64(bitPattern: timestamp).bigEndian) { Array($0) } + message
        guard let sealed = Sodium.aeadSeal(inside, associated: head[...], counter: 0, key: key) else { return nil }
        return head + sealed
    }

    /// Opens `envelope` for the device holding `keys`, its sender looked up in `roster`; the
    /// caller ran `EnvelopeOpener.freeCheck` (version, wake class, size bounds).
    package static func open(_ envelope: [UInt8], keys: EnvelopeKeys, roster: SiblingRoster) -> Result<Opened, Refusal> {
        guard envelope.count >= minBytes, envelope[0] == version else { return .failure(.malformed) }
        let ephemeral = Array(envelope[2..<(2 + Sodium.keyBytes)])
        let secret = keys.deviceKeys.envelopeSecretKey
        guard let toRecipient = Sodium.sharedSecret(secretKey: secret, publicKey: ephemeral),
              let mask = mask(toRecipient, ephemeral: ephemeral, recipientKey: keys.deviceKeys.envelopePublicKey,
                              channelKey: keys.channel.mac) else { return .failure(.unopenable) }
        let reference = zip(envelope[(2 + Sodium.keyBytes)..<headerBytes], mask).map { $0 ^ $1 }
        let candidates = roster.devices.filter { $0 != keys.device && $0.publicKey.starts(with: reference) }
        guard !candidates.isEmpty else { return .failure(.unknownSender) }
        for device in candidates {
            guard let certificate = roster.certificate(of: device),
                  let statics = Sodium.sharedSecret(secretKey: secret, publicKey: certificate.envelopeKey),
                  let key = envelopeKey(toRecipient, statics: statics, ephemeral: ephemeral, sender: device,
                                        senderKey: certificate.envelopeKey, recipient: keys.device,
                                        recipientKey: keys.deviceKeys.envelopePublicKey, channelKey: keys.channel.mac),
                  let inside = Sodium.aeadOpen(envelope[headerBytes...], associated: envelope[0..<headerBytes], counter: 0, key: key)
            else { continue }
            let message = Array(inside.dropFirst(timestampBytes))
            guard inside.count > timestampBytes, SessionMessage.hasMagic(message) else { return .failure(.malformed) }
            let timestamp = Int64(bitPattern: inside.prefix(timestampBytes).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            return .success(Opened(certificate: certificate, message: message, frameID: Array(ephemeral.prefix(EnvelopeFormat.frameIDBytes)),
                                   timestamp: timestamp))
        }
        return .failure(.unopenable)
    }

    private static func mask(_ toRecipient: [UInt8], ephemeral: [UInt8], recipientKey: [UInt8], channelKey: [UInt8]) -> [UInt8]? {
        Sodium.keyedHash(maskDomain + toRecipient + ephemeral + recipientKey, key: channelKey, count: 16).map { Array($0.prefix(referenceBytes)) }
    }

    private static func envelopeKey(_ toRecipient: [UInt8], statics: [UInt8], ephemeral: [UInt8], sender: DeviceID, senderKey: [UInt8],
                                    recipient: DeviceID, recipientKey: [UInt8], channelKey: [UInt8]) -> [UInt8]? {
        let input = keyDomain + toRecipient + statics + ephemeral + sender.publicKey + recipient.publicKey + senderKey + recipientKey
        return Sodium.keyedHash(input, key: channelKey, count: Sodium.aeadKeyBytes)
    }
}
