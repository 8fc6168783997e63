import SyncEnvelope
import SyncKernel

/// The fixed account of the envelope fuzz target: device 0 runs the gate, devices 1 and 2 are
/// its siblings, device 3 holds a certificate of the account but is not in device 0's roster;
/// device 1 may hold a session to device 0 (`openSession`).
///
/// Invariant: every key comes from a fixed seed, so the same build yields the same keys, seeds
/// and verdicts on every run (a crash file replays).
struct EnvelopeFuzzWorld: Sendable {
    /// The time every input is opened at (milliseconds since 1970).
    static let now: Int64 = 1_700_000_000_000
    /// The seed of every ephemeral key the target seals with.
    static let ephemeralSeed = [UInt8](repeating: 0x42, count: 32)

    /// The world, built once per process (nil only if libsodium could not derive the fixed keys).
    static let shared: EnvelopeFuzzWorld? = try? EnvelopeFuzzWorld()

    let account: AccountMaterial
    let devices: [DeviceKeys]
    let certificates: [SenderCertificate]
    /// Device 0's keys.
    let keys: EnvelopeKeys
    /// Device 0's roster: devices 1 and 2.
    let roster: SiblingRoster
    /// Device 1's keys, which seal its short handshakes to device 0.
    let siblingKeys: EnvelopeKeys

    private init() throws(SyncKernelError) {
        account = try AccountMaterial(seed: [UInt8](repeating: 0xa1, count: 32), issuerSeed: [UInt8](repeating: 0xa2, count: 32))
        var devices: [DeviceKeys] = []
        var certificates: [SenderCertificate] = []
        for index in 0..<4 {
            let device = try DeviceKeys(signingSeed: [UInt8](repeating: UInt8(0x10 + index), count: 32),
                                        envelopeSecretKey: [UInt8](repeating: UInt8(0x20 + index), count: 32))
            devices.append(device)
            certificates.append(try account.issue(for: device, expiresAt: Self.now / 1_000 + 86_400))
        }
        self.devices = devices
        self.certificates = certificates
        keys = try EnvelopeKeys(account: account, device: devices[0], certificate: certificates[0])
        siblingKeys = try EnvelopeKeys(account: account, device: devices[1], certificate: certificates[1])
        roster = try SiblingRoster(Array(certificates.prefix(3)), for: keys)
    }

    /// The session policy of device 0's gate (a fixed epoch).
    static let policy = SessionPolicy(entropy: .seeded(0x5e))
    /// The ephemeral secret of device 1's hello to device 0.
    static let helloSecret = [UInt8](repeating: 0x33, count: 32)
    /// The id of that hello.
    static let helloID = [UInt8](repeating: 0x44, count: 16)

    /// A gate of device 0 over a fresh in-memory seen set, accepting session envelopes.
    func gate() throws(SyncKernelError) -> EnvelopeGate {
        EnvelopeGate(keys: keys, roster: roster, replay: try ReplayGuard(path: ":memory:"), sessions: Self.policy, entropy: .seeded(0x5f))
    }

    /// Opens device 1's session to device 0 on `gate` (a fixed hello, answered by the gate's
    /// seeded entropy): the receiver's index and the session key; nil if the fixed keys fail.
    func openSession(on gate: EnvelopeGate) -> (index: UInt32, key: [UInt8])? {
        guard let ephemeral = Sodium.envelopePublicKey(secretKey: Self.helloSecret) else { return nil }
        let hello = SessionMessage.Hello(helloID: Self.helloID, ephemeral: ephemeral, epoch: [UInt8](repeating: 0x55, count: 16))
        guard let accept = gate.opener.acceptSession(hello, from: devices[1].device, now: Self.now)?.accept,
              let shared = Sodium.sharedSecret(secretKey: Self.helloSecret, publicKey: accept.ephemeral),
              let key = SessionFormat.sessionKey(sharedSecret: shared, channelKey: keys.channel.mac, initiator: devices[1].device,
                                                 responder: devices[0].device, helloID: Self.helloID, initiatorEphemeral: ephemeral,
                                                 responderEphemeral: accept.ephemeral, index: accept.index) else { return nil }
        return (accept.index, key)
    }
}
