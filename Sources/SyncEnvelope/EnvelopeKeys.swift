import SyncKernel

/// Everything one device seals and opens envelopes with: its own keys and certificate, the
/// account's issuer public key and userIDHash, and the channel keys derived from the account seed.
///
/// Invariants: built only when the certificate names this device's two public keys and the
/// account's userIDHash and verifies under the issuer key (otherwise `invalidCertificate`), so a
/// device never seals under a certificate a sibling would refuse for its signature; the account
/// seed itself is not kept, only the subkeys derived from it; no rendering shows a secret.
/// Without an `EnvelopeKeys` (nil where one is asked for) a device seals nothing (throws
/// `keyMaterialMissing`) and its gate drops everything (`noKeyMaterial`).
public struct EnvelopeKeys: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// This device.
    public let device: DeviceID
    /// This device's certificate, carried inside every envelope it seals.
    public let certificate: SenderCertificate
    /// The account's issuer public key, which every sibling's certificate must verify under.
    public let issuerPublicKey: [UInt8]
    /// The account's userIDHash: a certificate naming another is from another account, and it
    /// is the `account` a `Replica` of this device is given.
    public let userIDHash: [UInt8]
    /// The subject of this device's own inbox, the one it subscribes to.
    public let inbox: RecipientSubject
    /// This device's secret keys.
    package let deviceKeys: DeviceKeys
    /// The sibling channel and inbox keys.
    package let channel: ChannelKeys

    /// The keys of a device holding the 32-byte account seed and the issuer's public key.
    public init(accountSeed: [UInt8], issuerPublicKey: [UInt8], device: DeviceKeys,
                certificate: SenderCertificate) throws(SyncKernelError) {
        let userIDHash = AccountMaterial.userIDHash(issuerPublicKey: issuerPublicKey)
        guard certificate.device == device.device, certificate.envelopeKey == device.envelopePublicKey,
              certificate.userIDHash == userIDHash, certificate.verify(issuer: issuerPublicKey) else {
            throw SyncKernelError(.invalidCertificate, "the certificate is not this device's, issued by this account")
        }
        channel = try ChannelKeys(accountSeed: accountSeed)
        inbox = try RecipientSubject(device: device.device, inboxKey: channel.inbox)
        self.device = device.device
        self.certificate = certificate
        self.issuerPublicKey = issuerPublicKey
        self.userIDHash = userIDHash
        deviceKeys = device
    }

    /// The keys of a device of `account`.
    public init(account: AccountMaterial, device: DeviceKeys, certificate: SenderCertificate) throws(SyncKernelError) {
        try self.init(accountSeed: account.seed, issuerPublicKey: account.issuerPublicKey, device: device, certificate: certificate)
    }

    /// The inbox subject of `device` (a sibling) on the relay.
    public func subject(of device: DeviceID) throws(SyncKernelError) -> RecipientSubject {
        try RecipientSubject(device: device, inboxKey: channel.inbox)
    }

    /// The device's short id; the secrets are never shown.
    public var description: String { "EnvelopeKeys(\(device), secrets redacted)" }

    /// The same as `description`.
    public var debugDescription: String { description }

    /// A mirror with no children, so `dump` and reflection show `description` only.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
