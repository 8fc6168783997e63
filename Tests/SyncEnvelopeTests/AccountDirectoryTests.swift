import Foundation
@testable import SyncEnvelope
import SyncKernel
import XCTest

/// The account directory on disk: owner-only files written whole, refused when exposed or
/// malformed, never overwritten; and no rendering of a key type showing its secrets.
final class AccountDirectoryTests: XCTestCase {
    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int)
    }

    private func setMode(_ mode: Int, _ path: String) throws {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
    }

    private func assertRejected(_ code: SyncKernelError.Code, file: StaticString = #filePath, line: UInt = #line,
                                _ body: () throws -> Void) {
        XCTAssertThrowsError(try body(), file: file, line: line) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, code, "\($0)", file: file, line: line)
        }
    }

    func testAccountAndDeviceFilesAreOwnerOnlyAndReadBack() throws {
        let world = try EnvelopeWorld(devices: 0)
        let directory = AccountDirectory(path: world.path("account"))
        let account = try directory.create(entropy: world.entropy)
        let phone = try directory.addDevice(name: "phone", expiresAt: EnvelopeWorld.expiry, entropy: world.entropy)
        let laptop = try directory.addDevice(name: "laptop", expiresAt: EnvelopeWorld.expiry, entropy: world.entropy)
        XCTAssertEqual(try mode(directory.path), 0o700)
        XCTAssertEqual(try mode(directory.devicesFolder), 0o700)
        for file in [directory.accountFile] + ["phone", "laptop"].flatMap({ ["\(directory.devicesFolder)/\($0).key", "\(directory.devicesFolder)/\($0).cert"] }) {
            XCTAssertEqual(try mode(file), 0o600, file)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.devicesFolder).sorted(),
                       ["laptop.cert", "laptop.key", "phone.cert", "phone.key"], "no staging file left behind")
        let loaded = try directory.account()
        XCTAssertEqual(loaded.seed, account.seed)
        XCTAssertEqual(loaded.issuerPublicKey, account.issuerPublicKey)
        XCTAssertEqual(try directory.deviceNames(), ["laptop", "phone"])
        let keys = try directory.envelopeKeys(name: "phone")
        XCTAssertEqual(keys.device, phone.device)
        XCTAssertEqual(keys.certificate, phone)
        XCTAssertEqual(keys.userIDHash, account.userIDHash)
        XCTAssertTrue(phone.verify(issuer: account.issuerPublicKey))
        XCTAssertEqual(phone.expiresAt, EnvelopeWorld.expiry)
        XCTAssertEqual(try directory.roster(for: keys).devices, [laptop.device])
        let sealed = try EnvelopeSealer(keys: keys, roster: directory.roster(for: keys)).seal([1], to: laptop.device, now: EnvelopeWorld.now)
        let laptopKeys = try directory.envelopeKeys(name: "laptop")
        let gate = EnvelopeGate(keys: laptopKeys, roster: try directory.roster(for: laptopKeys), replay: try ReplayGuard(path: ":memory:"))
        XCTAssertEqual(gate.open(sealed.bytes, now: EnvelopeWorld.now).accepted?.sender, phone.device, "keys read back from files seal and open")
    }

    func testRejectAKeyFileOthersMayReadOrWrite() throws {
        let world = try EnvelopeWorld(devices: 0)
        let directory = AccountDirectory(path: world.path("account"))
        try directory.create(entropy: world.entropy)
        try directory.addDevice(name: "phone", expiresAt: EnvelopeWorld.expiry, entropy: world.entropy)
        let deviceFile = directory.devicesFolder + "/phone.key"
        for wider in [0o644, 0o640, 0o604, 0o620, 0o602, 0o700, 0o666] {
            try setMode(wider, directory.accountFile)
            assertRejected(.keyFileExposed) { _ = try directory.account() }
            assertRejected(.keyFileExposed) { try directory.addDevice(name: "tablet", expiresAt: EnvelopeWorld.expiry) }
            try setMode(0o600, directory.accountFile)
            try setMode(wider, deviceFile)
            assertRejected(.keyFileExposed) { _ = try directory.deviceKeys(name: "phone") }
            assertRejected(.keyFileExposed) { _ = try directory.envelopeKeys(name: "phone") }
            try setMode(0o600, deviceFile)
        }
        try setMode(0o400, deviceFile)
        XCTAssertNoThrow(try directory.deviceKeys(name: "phone"), "read-only for the owner is narrower, and fine")
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory.devicesFolder + "/tablet.key"), "nothing added while refused")
    }

    func testRejectASymbolicLinkOrADirectoryAsAKeyFile() throws {
        let world = try EnvelopeWorld(devices: 0)
        let directory = AccountDirectory(path: world.path("account"))
        try directory.create(entropy: world.entropy)
        try directory.addDevice(name: "phone", expiresAt: EnvelopeWorld.expiry, entropy: world.entropy)
        let real = directory.devicesFolder + "/phone.key"
        try FileManager.default.createSymbolicLink(atPath: directory.devicesFolder + "/linked.key", withDestinationPath: real)
        try FileManager.default.copyItem(atPath: directory.devicesFolder + "/phone.cert", toPath: directory.devicesFolder + "/linked.cert")
        assertRejected(.keyFileExposed) { _ = try directory.deviceKeys(name: "linked") }
        try FileManager.default.createDirectory(atPath: directory.devicesFolder + "/folder.key", withIntermediateDirectories: false)
        try setMode(0o700, directory.devicesFolder + "/folder.key")
        assertRejected(.keyFileExposed) { _ = try directory.deviceKeys(name: "folder") }
    }

    func testRejectAMalformedOrMissingKeyFile() throws {
        let world = try EnvelopeWorld(devices: 0)
        let directory = AccountDirectory(path: world.path("account"))
        assertRejected(.keyFileUnavailable) { _ = try directory.account() }
        try directory.create(entropy: world.entropy)
        try directory.addDevice(name: "phone", expiresAt: EnvelopeWorld.expiry, entropy: world.entropy)
        let accountBytes = try Data(contentsOf: URL(fileURLWithPath: directory.accountFile))
        for damaged in [accountBytes.dropLast(), accountBytes + [0], Data([0x58]) + accountBytes.dropFirst(), Data()] {
            try damaged.write(to: URL(fileURLWithPath: directory.accountFile))
            try setMode(0o600, directory.accountFile)
            assertRejected(.malformedKeyFile) { _ = try directory.account() }
        }
        try Data(repeating: 1, count: KeyFile.maxBytes + 1).write(to: URL(fileURLWithPath: directory.accountFile))
        assertRejected(.malformedKeyFile) { _ = try directory.account() }
        let certificate = directory.devicesFolder + "/phone.cert"
        let certificateBytes = try Data(contentsOf: URL(fileURLWithPath: certificate))
        try certificateBytes.dropLast().write(to: URL(fileURLWithPath: certificate))
        assertRejected(.malformedKeyFile) { _ = try directory.certificate(name: "phone") }
        assertRejected(.keyFileUnavailable) { _ = try directory.deviceKeys(name: "tablet") }
    }

    func testRejectACertificateThatIsNotTheDevicesOrNotTheAccounts() throws {
        let world = try EnvelopeWorld(devices: 0)
        let directory = AccountDirectory(path: world.path("account"))
        try directory.create(entropy: world.entropy)
        try directory.addDevice(name: "phone", expiresAt: EnvelopeWorld.expiry, entropy: world.entropy)
        try directory.addDevice(name: "laptop", expiresAt: EnvelopeWorld.expiry, entropy: world.entropy)
        let account = try directory.account()
        assertRejected(.invalidCertificate) {
            _ = try EnvelopeKeys(account: account, device: try directory.deviceKeys(name: "phone"),
                                 certificate: try directory.certificate(name: "laptop"))
        }
        let other = try AccountMaterial.generate(entropy: world.entropy)
        let phone = try directory.deviceKeys(name: "phone")
        assertRejected(.invalidCertificate) {
            _ = try EnvelopeKeys(account: account, device: phone, certificate: try other.issue(for: phone, expiresAt: EnvelopeWorld.expiry))
        }
        assertRejected(.invalidCertificate) {
            _ = try SiblingRoster([try other.issue(for: try DeviceKeys.generate(entropy: world.entropy), expiresAt: EnvelopeWorld.expiry)],
                                  for: try directory.envelopeKeys(name: "phone"))
        }
    }

    func testRejectOverwritingAnAccountOrADeviceAndNamesThatLeaveTheDirectory() throws {
        let world = try EnvelopeWorld(devices: 0)
        let directory = AccountDirectory(path: world.path("account"))
        let account = try directory.create(entropy: world.entropy)
        assertRejected(.keyFileUnavailable) { try directory.create(entropy: world.entropy) }
        XCTAssertEqual(try directory.account().seed, account.seed, "the first account is kept")
        let phone = try directory.addDevice(name: "phone", expiresAt: EnvelopeWorld.expiry, entropy: world.entropy)
        assertRejected(.keyFileUnavailable) { try directory.addDevice(name: "phone", expiresAt: EnvelopeWorld.expiry) }
        XCTAssertEqual(try directory.certificate(name: "phone"), phone)
        for name in ["", "../escape", "a/b", ".hidden", String(repeating: "x", count: 65), "sp ace", "é"] {
            XCTAssertFalse(AccountDirectory.isValidDeviceName(name), name)
            assertRejected(.keyFileUnavailable) { try directory.addDevice(name: name, expiresAt: EnvelopeWorld.expiry) }
        }
        XCTAssertTrue(AccountDirectory.isValidDeviceName("Phone_2-b"))
        XCTAssertEqual(try directory.deviceNames(), ["phone"])
    }

    /// Whether `text` shows `secret` as hex (whole, or its first 8 bytes, any case), base64, or
    /// Swift's rendering of its first bytes as a list.
    private func shows(_ text: String, _ secret: [UInt8]) -> Bool {
        let hex = Hex.encode(secret)
        let list = secret.prefix(4).map(String.init).joined(separator: ", ")
        return text.lowercased().contains(String(hex.prefix(16))) || text.contains(Data(secret).base64EncodedString())
            || text.contains(list)
    }

    func testNoRenderingOfAKeyTypeShowsKeyBytes() throws {
        let world = try EnvelopeWorld(devices: 2)
        let keys = try world.keys(0)
        let device = world.devices[0]
        let secrets: [(String, [UInt8])] = [
            ("account seed", world.account.seed), ("issuer seed", world.account.issuerSeed),
            ("issuer secret key", Array(try XCTUnwrap(Sodium.signingKeyPair(seed: world.account.issuerSeed)).secretKey.prefix(32))),
            ("signing secret key", device.signing.secretKey), ("signing seed", Array(device.signing.secretKey.prefix(32))),
            ("envelope secret key", device.envelopeSecretKey), ("channel key", keys.channel.mac), ("inbox key", keys.channel.inbox),
        ]
        let sealer = EnvelopeSealer(keys: keys, roster: try world.roster(0))
        let gate = try world.gate(0)
        let values: [Any] = [world.account, device, device.signing, keys, keys.channel, sealer, gate, Optional(keys) as Any]
        for value in values {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [String(describing: value), String(reflecting: value), "\(value)", dumped] {
                for (name, secret) in secrets {
                    XCTAssertFalse(shows(text, secret), "\(type(of: value)) shows the \(name): \(text)")
                }
            }
        }
        XCTAssertEqual(String(describing: world.account), "AccountMaterial(\(Hex.short(world.account.userIDHash)), secrets redacted)")
        XCTAssertEqual(String(describing: device), "DeviceKeys(\(device.device), secrets redacted)")
        XCTAssertTrue(shows(Hex.encode(device.envelopeSecretKey), device.envelopeSecretKey), "the check itself finds a secret shown")
    }
}

extension EnvelopeVerdict {
    /// The opened envelope, when accepted.
    var accepted: OpenedEnvelope? {
        if case .accepted(let opened) = self { return opened }
        return nil
    }
}
