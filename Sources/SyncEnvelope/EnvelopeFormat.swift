import SyncKernel

/// The byte layout of an envelope, outside and inside, written and read by hand.
///
/// Outside (what the relay carries, besides the subject it is published to):
///
///     0   1   format version (1)
///     1   1   wake class (`WakeClass`, 0 for every sync_delta frame)
///     2   …   a sealed box (libsodium `crypto_box_seal` format: 32-byte ephemeral X25519 key,
///             then the box with its 16-byte MAC) of the inside, to the recipient's envelope key
///
/// Inside (the sealed box's plaintext):
///
///     0     1    inner version (1)
///     1     169  the sender's certificate (`SenderCertificate`)
///     170   32   the recipient's device id
///     202   16   frame id (random)
///     218   8    timestamp, milliseconds since 1970 (two's complement, big-endian)
///     226   n    the frame
///     226+n 64   Ed25519 signature by the sender's device key over "synckernel.envelope.v1" ‖ bytes 0..<226+n
///     290+n 32   HMAC-SHA-512-256 (`crypto_auth`) under the sibling channel key over bytes 0..<290+n
///
/// Invariants: the overhead is fixed (`overheadBytes`, 372 bytes), so the size bound
/// `maxEnvelopeBytes` follows from `SyncFrame.maxFrameBytes` and is checked on the raw bytes
/// before anything is decrypted; `inside(...)` and `parseInside(_:)` are exact inverses on the
/// fields, and parsing reads nothing beyond the plaintext's bounds.
package enum EnvelopeFormat {
    /// The outer format version.
    package static let version: UInt8 = 1
    /// The inner format version.
    package static let innerVersion: UInt8 = 1
    /// Bytes of a frame id.
    package static let frameIDBytes = 16
    /// The outer header: version and wake class.
    package static let outerHeaderBytes = 2
    /// The inside's fields before the frame.
    package static let innerHeaderBytes = 1 + SenderCertificate.byteCount + 32 + frameIDBytes + 8
    /// The inside's fields after the frame: signature and MAC.
    package static let innerTrailerBytes = Sodium.signatureBytes + Sodium.authBytes
    /// Everything an envelope adds to its frame.
    package static let overheadBytes = outerHeaderBytes + Sodium.sealBytes + innerHeaderBytes + innerTrailerBytes
    /// The largest envelope: the largest frame a build writes (`SyncFrame.maxFrameBytes`) and
    /// the overhead. One byte more is dropped unopened.
    package static let maxEnvelopeBytes = SyncFrame.maxFrameBytes + overheadBytes
    /// The smallest envelope (an empty frame); anything shorter is dropped unopened.
    package static let minEnvelopeBytes = overheadBytes
    /// What a device's signature covers before the inside's bytes.
    private static let signatureDomain = Array("synckernel.envelope.v1".utf8)

    /// The fields of an opened inside, as read (nothing verified).
    package struct Inside {
        /// The sender's certificate.
        package let certificate: SenderCertificate
        /// The device the sender addressed.
        package let recipient: DeviceID
        /// The frame id.
        package let frameID: [UInt8]
        /// The sender's timestamp, milliseconds since 1970.
        package let timestamp: Int64
        /// The frame.
        package let frame: [UInt8]
        /// The sender's signature.
        package let signature: [UInt8]
        /// The bytes the signature covers (without its domain).
        package let signed: ArraySlice<UInt8>
        /// The MAC.
        package let mac: ArraySlice<UInt8>
        /// The bytes the MAC covers.
        package let authenticated: ArraySlice<UInt8>
    }

    /// The inside of an envelope: the fields, signed with `signingKey` (the sender's 64-byte
    /// Ed25519 secret key) and MAC'd under `macKey`; nil when a key has the wrong size.
    package static func inside(certificate: SenderCertificate, recipient: DeviceID, frameID: [UInt8], timestamp: Int64,
                               frame: [UInt8], signingKey: [UInt8], macKey: [UInt8]) -> [UInt8]? {
        guard frameID.count == frameIDBytes else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(innerHeaderBytes + frame.count + innerTrailerBytes)
        bytes.append(innerVersion)
        bytes += certificate.encoded()
        bytes += recipient.publicKey
        bytes += frameID
        bytes += withUnsafeBytes(of: timestamp.bigEndian) { Array($0) }
        bytes += frame
        return signedAndAuthenticated(bytes, signingKey: signingKey, macKey: macKey)
    }

    /// `fields` (an inside up to and including its frame) followed by the sender's signature
    /// with `signingKey` and the MAC under `macKey`; nil when a key has the wrong size.
    package static func signedAndAuthenticated(_ fields: [UInt8], signingKey: [UInt8], macKey: [UInt8]) -> [UInt8]? {
        guard let signature = Sodium.sign(signatureDomain + fields, secretKey: signingKey) else { return nil }
        let signed = fields + signature
        guard let mac = Sodium.authenticate(signed[...], key: macKey) else { return nil }
        return signed + mac
    }

    /// The message a sender's signature covers for the signed bytes `signed`.
    package static func signedMessage(_ signed: ArraySlice<UInt8>) -> [UInt8] {
        signatureDomain + signed
    }

    /// Reads the fields of an inside; nil when it is shorter than the fixed fields, of another
    /// version, or its certificate does not parse.
    package static func parseInside(_ bytes: [UInt8]) -> Inside? {
        guard bytes.count >= innerHeaderBytes + innerTrailerBytes, bytes.first == innerVersion else { return nil }
        var at = 1
        guard let certificate = SenderCertificate(parsing: bytes[at..<(at + SenderCertificate.byteCount)]) else { return nil }
        at += SenderCertificate.byteCount
        guard let recipient = try? DeviceID(publicKey: Array(bytes[at..<(at + 32)])) else { return nil }
        at += 32
        let frameID = Array(bytes[at..<(at + frameIDBytes)])
        at += frameIDBytes
        var stamp: UInt64 = 0
        for byte in bytes[at..<(at + 8)] { stamp = stamp << 8 | UInt64(byte) }
        at += 8
        let macStart = bytes.count - Sodium.authBytes
        let signatureStart = macStart - Sodium.signatureBytes
        return Inside(certificate: certificate, recipient: recipient, frameID: frameID, timestamp: Int64(bitPattern: stamp),
                      frame: Array(bytes[at..<signatureStart]), signature: Array(bytes[signatureStart..<macStart]),
                      signed: bytes[0..<signatureStart], mac: bytes[macStart...], authenticated: bytes[0..<macStart])
    }
}
