import SyncEnvelope
import SyncKernel

/// A device's request to join an account, sealed to the account's discovery key and published on
/// its discovery subject. It carries where to answer (a fresh reply subject and an ephemeral
/// X25519 key, both the requester's own), the public halves of the keys the device made for
/// itself, when it was sent and how long the requester waits, its name, and the sign-in
/// certificate that proves control of the account's sign-in identity.
///
/// Inside (the sealed box's plaintext), hand-written, big-endian:
///
///     0      1    version (1)
///     1     16    request id (random; the same in every re-send of one request)
///     17    16    reply token: the reply subject is `synckernel.join-reply.` ‖ hex(token)
///     33    32    the requester's ephemeral X25519 public key (replies are boxed to it)
///     65    32    the new device's id (its Ed25519 signing public key)
///     97    32    the new device's X25519 envelope public key
///     129    8    timestamp, milliseconds since 1970 (this send's)
///     137    8    deadline, milliseconds since 1970: the requester waits for a decision until then
///     145    1    name length n (1...64)
///     146   64    the device's name (ASCII letters, digits, `-`, `_`), then 64 - n zero bytes
///     210  105    the sign-in certificate
///
/// Outside (the bytes the relay carries): version 1, then a libsodium sealed box
/// (`crypto_box_seal` format, as `Sodium.seal`) of the inside to the discovery public key.
///
/// Invariants: `encoded()` and `init?(parsing:)` are exact inverses (nothing else parses: another
/// length, version or name, padding that is not zero, a certificate that does not parse, a
/// deadline not after the timestamp or more than `maxWaitMillis` after it); every request is
/// `insideBytes` long whatever its name, so every sealed request is `sealedBytes` long and the
/// relay learns nothing from its length; the secret halves of the device's keys and of the
/// ephemeral key never appear in a request; outside the box only the version shows.
public struct SignInRequest: Sendable, Hashable {
    /// The version of the inside and of the outside.
    package static let version: UInt8 = 1
    /// Bytes of a request id.
    package static let requestIDBytes = 16
    /// The fields before the name.
    private static let headerBytes = 146
    /// The name's field: the longest device name.
    private static let nameBytes = 64
    /// Every inside's length.
    package static let insideBytes = headerBytes + nameBytes + SignInCertificate.byteCount
    /// Every sealed request's length: the version, the sealed box's overhead and the inside. Any
    /// other length is dropped before it is decrypted.
    public static let sealedBytes = 1 + Sodium.sealBytes + insideBytes
    /// The longest a requester may say it waits after a send (10 minutes).
    public static let maxWaitMillis: Int64 = 600_000

    /// The request's id: replies name it, and the sibling's seen set records it.
    public let requestID: [UInt8]
    /// The token that names the reply subject.
    public let replyToken: [UInt8]
    /// The requester's ephemeral X25519 public key.
    public let ephemeralKey: [UInt8]
    /// The new device.
    public let device: DeviceID
    /// The new device's X25519 envelope public key.
    public let envelopeKey: [UInt8]
    /// When this send was made, milliseconds since 1970 (the requester's clock).
    public let timestamp: Int64
    /// Until when the requester waits, milliseconds since 1970 (the requester's clock).
    public let deadline: Int64
    /// The new device's name in the account directory (`devices/NAME.cert`).
    public let deviceName: String
    /// The proof of control of the account's sign-in identity.
    public let certificate: SignInCertificate
    /// The subject the requester listens on for the answer (named by `replyToken`).
    public let replySubject: JoinSubject

    /// A request from its parts; `malformedFrame` when a part is out of bounds (sizes, a name
    /// that is not a valid device name, a deadline not after the timestamp or too far after it).
    public init(requestID: [UInt8], replyToken: [UInt8], ephemeralKey: [UInt8], device: DeviceID, envelopeKey: [UInt8],
                timestamp: Int64, deadline: Int64, deviceName: String, certificate: SignInCertificate) throws(SyncKernelError) {
        guard requestID.count == Self.requestIDBytes, let replySubject = JoinSubject.reply(token: replyToken),
              ephemeralKey.count == Sodium.keyBytes, envelopeKey.count == Sodium.keyBytes,
              AccountDirectory.isValidDeviceName(deviceName), certificate.identity.count == SignInCertificate.identityBytes,
              deadline > timestamp, case let (wait, overflow) = deadline.subtractingReportingOverflow(timestamp), !overflow,
              wait <= Self.maxWaitMillis else {
            throw SyncKernelError(.malformedFrame, "a sign-in request field out of bounds")
        }
        self.requestID = requestID
        self.replyToken = replyToken
        self.ephemeralKey = ephemeralKey
        self.device = device
        self.envelopeKey = envelopeKey
        self.timestamp = timestamp
        self.deadline = deadline
        self.deviceName = deviceName
        self.certificate = certificate
        self.replySubject = replySubject
    }

    /// The inside's bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = [Self.version]
        bytes.reserveCapacity(Self.insideBytes)
        bytes += requestID
        bytes += replyToken
        bytes += ephemeralKey
        bytes += device.publicKey
        bytes += envelopeKey
        bytes += withUnsafeBytes(of: timestamp.bigEndian) { Array($0) }
        bytes += withUnsafeBytes(of: deadline.bigEndian) { Array($0) }
        bytes.append(UInt8(deviceName.utf8.count))
        bytes += Array(deviceName.utf8)
        bytes += [UInt8](repeating: 0, count: Self.nameBytes - deviceName.utf8.count)
        bytes += certificate.encoded()
        return bytes
    }

    /// Reads an inside; nil when it is not exactly a request's layout with fields in bounds.
    public init?(parsing bytes: [UInt8]) {
        guard bytes.count == Self.insideBytes, bytes[0] == Self.version else { return nil }
        let nameLength = Int(bytes[Self.headerBytes - 1])
        let certificateStart = Self.headerBytes + Self.nameBytes
        guard nameLength <= Self.nameBytes,
              bytes[(Self.headerBytes + nameLength)..<certificateStart].allSatisfy({ $0 == 0 }),
              let device = try? DeviceID(publicKey: Array(bytes[65..<97])),
              let certificate = SignInCertificate(parsing: bytes[certificateStart...]) else { return nil }
        let name = String(decoding: bytes[Self.headerBytes..<(Self.headerBytes + nameLength)], as: UTF8.self)
        guard let request = try? SignInRequest(requestID: Array(bytes[1..<17]), replyToken: Array(bytes[17..<33]),
                                               ephemeralKey: Array(bytes[33..<65]), device: device,
                                               envelopeKey: Array(bytes[97..<129]), timestamp: Self.int64(bytes[129..<137]),
                                               deadline: Self.int64(bytes[137..<145]), deviceName: name,
                                               certificate: certificate) else { return nil }
        self = request
    }

    /// The sealed request for the account with discovery public key `discoveryKey`: the version,
    /// then a sealed box of the inside made with an ephemeral key pair from `ephemeralSeed`
    /// (32 fresh random bytes); nil when a key has the wrong size.
    public func sealed(to discoveryKey: [UInt8], ephemeralSeed: [UInt8]) -> [UInt8]? {
        guard let box = Sodium.seal(encoded(), to: discoveryKey, ephemeralSeed: ephemeralSeed) else { return nil }
        return [Self.version] + box
    }

    /// A big-endian two's complement integer of 8 bytes.
    private static func int64(_ bytes: ArraySlice<UInt8>) -> Int64 {
        var value: UInt64 = 0
        for byte in bytes { value = value << 8 | UInt64(byte) }
        return Int64(bitPattern: value)
    }
}
