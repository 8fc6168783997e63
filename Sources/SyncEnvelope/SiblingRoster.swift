import SyncKernel

/// The certificates of a device's siblings: whom it may seal to (their envelope keys) and whose
/// envelopes its gate accepts.
///
/// Invariants: every certificate verifies under the account's issuer key and names the
/// account's userIDHash (otherwise `init` throws `invalidCertificate`); one certificate per
/// device (the one expiring last when several are given); this device itself is never in it.
public struct SiblingRoster: Sendable, Hashable {
    private let certificates: [DeviceID: SenderCertificate]

    /// The roster of `certificates` for the device `own` of the account with `issuerPublicKey`.
    public init(_ certificates: [SenderCertificate], issuerPublicKey: [UInt8], excluding own: DeviceID) throws(SyncKernelError) {
        let userIDHash = AccountMaterial.userIDHash(issuerPublicKey: issuerPublicKey)
        var byDevice: [DeviceID: SenderCertificate] = [:]
        for certificate in certificates where certificate.device != own {
            guard certificate.userIDHash == userIDHash, certificate.verify(issuer: issuerPublicKey) else {
                throw SyncKernelError(.invalidCertificate, "a sibling certificate not issued by this account")
            }
            if let held = byDevice[certificate.device], held.expiresAt >= certificate.expiresAt { continue }
            byDevice[certificate.device] = certificate
        }
        self.certificates = byDevice
    }

    /// The roster of `certificates` for the device that holds `keys`.
    public init(_ certificates: [SenderCertificate], for keys: EnvelopeKeys) throws(SyncKernelError) {
        try self.init(certificates, issuerPublicKey: keys.issuerPublicKey, excluding: keys.device)
    }

    /// The roster with `certificate` added (for the device holding `keys`): a device learned at
    /// runtime. `invalidCertificate` when the account did not issue it; this device's own
    /// certificate changes nothing.
    public func adding(_ certificate: SenderCertificate, for keys: EnvelopeKeys) throws(SyncKernelError) -> SiblingRoster {
        try SiblingRoster(Array(certificates.values) + [certificate], for: keys)
    }

    /// The sibling devices, sorted: the `siblings` of this device's `Replica`.
    public var devices: [DeviceID] { certificates.keys.sorted() }

    /// The certificate of `device`, if it is a sibling.
    public func certificate(of device: DeviceID) -> SenderCertificate? {
        certificates[device]
    }

    /// Whether `device` is a sibling.
    public func contains(_ device: DeviceID) -> Bool {
        certificates[device] != nil
    }
}
