import Foundation
@testable import SyncEnvelope
import SyncKernel
import TestServers
import XCTest

/// `synckernel account create` and `account add-device` as a user runs them: owner-only files,
/// the device id and nothing else on standard output, no key byte anywhere in the output.
final class AccountCommandTests: XCTestCase {
    /// Runs `synckernel account` with `arguments`; returns the exit status and both outputs.
    private func account(_ arguments: [String], file: StaticString = #filePath,
                         line: UInt = #line) async throws -> (status: Int32, output: String, errors: String) {
        let result = try await SynckernelProgram.run(["account"] + arguments)
        XCTAssertFalse(result.crashed, "never a crash", file: file, line: line)
        return (result.status, result.output, result.errors)
    }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int)
    }

    func testCreateAndAddDeviceWriteOwnerOnlyFilesAndPrintTheDeviceIDOnly() async throws {
        let world = try EnvelopeWorld(devices: 0)
        let path = world.path("account")
        let created = try await account(["create", "--dir", path])
        XCTAssertEqual(created.status, 0, created.errors)
        XCTAssertEqual(created.output, "", "create prints nothing on standard output")
        let added = try await account(["add-device", "--dir", path, "--name", "phone"])
        XCTAssertEqual(added.status, 0, added.errors)
        XCTAssertEqual(added.errors, "")
        let laptop = try await account(["add-device", "--dir", path, "--name", "laptop", "--valid-days", "2"])
        XCTAssertEqual(laptop.status, 0, laptop.errors)
        let directory = AccountDirectory(path: path)
        let phone = try directory.certificate(name: "phone")
        XCTAssertEqual(added.output, phone.device.hex + "\n", "the device id and nothing else")
        XCTAssertEqual(laptop.output, try directory.certificate(name: "laptop").device.hex + "\n")
        let now = SystemWallClock().millisecondsSince1970 / 1_000
        XCTAssertEqual(Double(phone.expiresAt - now), 365 * 86_400, accuracy: 60)
        XCTAssertEqual(Double(try directory.certificate(name: "laptop").expiresAt - now), 2 * 86_400, accuracy: 60)
        XCTAssertEqual(try mode(path), 0o700)
        for file in ["account.key", "devices/phone.key", "devices/phone.cert", "devices/laptop.key", "devices/laptop.cert"] {
            XCTAssertEqual(try mode(path + "/" + file), 0o600, file)
        }
        let account = try directory.account()
        let keys = try directory.deviceKeys(name: "phone")
        let secrets = [account.seed, account.issuerSeed, keys.envelopeSecretKey, Array(keys.signing.secretKey.prefix(32))]
        for text in [created.output, created.errors, added.output, added.errors, laptop.output, laptop.errors] {
            for secret in secrets {
                XCTAssertFalse(text.lowercased().contains(Hex.encode(secret).prefix(16)), "no key byte is printed")
                XCTAssertFalse(text.contains(Data(secret).base64EncodedString()))
            }
        }
        let phoneKeys = try directory.envelopeKeys(name: "phone")
        XCTAssertEqual(try directory.roster(for: phoneKeys).devices, [try directory.certificate(name: "laptop").device])
    }

    func testRejectACreateOverAnAccountAndADeviceNameInUse() async throws {
        let world = try EnvelopeWorld(devices: 0)
        let path = world.path("account")
        let createdFirst = try await account(["create", "--dir", path])
        XCTAssertEqual(createdFirst.status, 0)
        let seed = try AccountDirectory(path: path).account().seed
        let again = try await account(["create", "--dir", path])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.errors.contains("SK309"), again.errors)
        XCTAssertEqual(try AccountDirectory(path: path).account().seed, seed, "the account is not replaced")
        let addedFirst = try await account(["add-device", "--dir", path, "--name", "phone"])
        XCTAssertEqual(addedFirst.status, 0)
        let twice = try await account(["add-device", "--dir", path, "--name", "phone"])
        XCTAssertEqual(twice.status, 1)
        XCTAssertEqual(twice.output, "")
    }

    func testRejectAddDeviceWithAnExposedOrMissingAccount() async throws {
        let world = try EnvelopeWorld(devices: 0)
        let path = world.path("account")
        let missing = try await account(["add-device", "--dir", path, "--name", "phone"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.errors.contains("SK309"), missing.errors)
        let createdAccount = try await account(["create", "--dir", path])
        XCTAssertEqual(createdAccount.status, 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path + "/account.key")
        let exposed = try await account(["add-device", "--dir", path, "--name", "phone"])
        XCTAssertEqual(exposed.status, 1)
        XCTAssertTrue(exposed.errors.contains("SK307 keyFileExposed"), exposed.errors)
        XCTAssertEqual(exposed.output, "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/devices/phone.key"))
    }

    func testRejectBadUsage() async throws {
        let world = try EnvelopeWorld(devices: 0)
        let path = world.path("account")
        for arguments in [[], ["delete", "--dir", path], ["create"], ["add-device", "--dir", path], ["create", "--dir", path, "--name", "x"],
                          ["add-device", "--dir", path, "--name", "../x"], ["add-device", "--dir", path, "--name", "x", "--valid-days", "0"]] {
            let result = try await account(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertEqual(result.output, "")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing written on bad usage")
    }
}
