import Foundation
@testable import SyncEnvelope
import SyncKernel
import XCTest

/// One account with a few devices, every key drawn from one seeded source: sealers and gates to
/// carry transfer messages in real envelopes.
///
/// Invariants: the same seed makes the same account and devices; the seen sets live in a private
/// folder removed with the world.
final class AccountWorld {
    /// The time every envelope is stamped and opened at.
    static let now: Int64 = 1_790_000_000_000

    let directory: String
    let entropy: EntropySource
    let account: AccountMaterial
    let devices: [DeviceKeys]
    let certificates: [SenderCertificate]

    init(devices count: Int, seed: UInt64) throws {
        directory = NSTemporaryDirectory() + "synckernel-transfer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let entropy = EntropySource.seeded(seed)
        let account = try AccountMaterial.generate(entropy: entropy)
        let devices = try (0..<count).map { _ in try DeviceKeys.generate(entropy: entropy) }
        self.entropy = entropy
        self.account = account
        self.devices = devices
        certificates = try devices.map { try account.issue(for: $0, expiresAt: AccountWorld.now / 1_000 + 86_400) }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func keys(_ index: Int) throws -> EnvelopeKeys {
        try EnvelopeKeys(account: account, device: devices[index], certificate: certificates[index])
    }

    func sealer(_ index: Int) throws -> EnvelopeSealer {
        EnvelopeSealer(keys: try keys(index), roster: try SiblingRoster(certificates, for: keys(index)), entropy: entropy)
    }

    func gate(_ index: Int) throws -> EnvelopeGate {
        EnvelopeGate(keys: try keys(index), roster: try SiblingRoster(certificates, for: keys(index)),
                     replay: try ReplayGuard(path: "\(directory)/seen-\(index).sqlite"))
    }

    /// An envelope carrying `frame` from this world's device `index` to a device of another
    /// account, sealed to its envelope key: what a stranger who learned a device's address sends.
    func envelope(_ frame: [UInt8], from index: Int, to recipient: DeviceKeys) throws -> [UInt8] {
        let inside = try XCTUnwrap(EnvelopeFormat.inside(certificate: certificates[index], recipient: recipient.device,
                                                         frameID: entropy.bytes(16), timestamp: AccountWorld.now, frame: frame,
                                                         signingKey: devices[index].signing.secretKey,
                                                         macKey: try keys(index).channel.mac))
        return [1, 0] + (try XCTUnwrap(Sodium.seal(inside, to: recipient.envelopePublicKey, ephemeralSeed: entropy.bytes(32))))
    }
}
