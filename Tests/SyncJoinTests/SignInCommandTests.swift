import Foundation
@testable import SyncEnvelope
import SyncJoin
import SyncKernel
import XCTest

/// `synckernel account create`, `sign-in-key` and `sign-in-cert` as a user runs them: owner-only
/// files, nothing on standard output, no key byte anywhere in the output, and refusals that write
/// nothing.
final class SignInCommandTests: XCTestCase {
    /// The CLI binary next to the test bundle (`swift build --build-tests` builds both).
    private func binary() throws -> URL {
        let folder = try XCTUnwrap(Bundle.main.executableURL).deletingLastPathComponent()
        let url = folder.appendingPathComponent("synckernel")
        guard FileManager.default.isExecutableFile(atPath: url.path) else {
            XCTFail("no synckernel binary at \(url.path): build with `swift build --build-tests`")
            throw CocoaError(.fileNoSuchFile)
        }
        return url
    }

    /// Runs `synckernel account` with `arguments`; returns the exit status and both outputs.
    private func account(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = try binary()
        process.arguments = ["account"] + arguments
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit, "never a crash")
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int)
    }

    private func folder() throws -> String {
        let path = NSTemporaryDirectory() + "synckernel-signin-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func testCreateWritesTheSignInKeyAndSignInCertWritesAnOwnerOnlyCredentialPrintingNoKey() throws {
        let base = try folder()
        let path = base + "/account"
        let created = try account(["create", "--dir", path])
        XCTAssertEqual(created.status, 0, created.errors)
        XCTAssertEqual(created.output, "")
        XCTAssertEqual(try mode(path + "/sign-in.key"), 0o600)
        let out = base + "/phone.signin"
        let before = SystemWallClock().millisecondsSince1970 / 1_000
        let written = try account(["sign-in-cert", "--dir", path, "--out", out, "--valid-for", "900"])
        XCTAssertEqual(written.status, 0, written.errors)
        XCTAssertEqual(written.output, "", "nothing on standard output")
        XCTAssertEqual(try mode(out), 0o600)
        let directory = AccountDirectory(path: path)
        let credential = try SignInCredential.read(from: out)
        let key = try directory.signInKey()
        XCTAssertTrue(credential.certificate.verify(verifier: key.verifierPublicKey))
        XCTAssertEqual(credential.certificate.identity, key.identity)
        XCTAssertEqual(Double(credential.certificate.expiresAt - before), 900, accuracy: 60)
        XCTAssertEqual(credential.discoverySubject, try directory.discoverySubject())
        let defaulted = try account(["sign-in-cert", "--dir", path, "--out", base + "/second.signin"])
        XCTAssertEqual(defaulted.status, 0, defaulted.errors)
        XCTAssertEqual(Double(try SignInCredential.read(from: base + "/second.signin").certificate.expiresAt - before), 600, accuracy: 60)
        let account = try directory.account()
        let fileBytes = try XCTUnwrap(FileManager.default.contents(atPath: path + "/sign-in.key"))
        let secrets = [account.seed, account.issuerSeed, Array(fileBytes[8..<40]), key.identity]
        for text in [created.output, created.errors, written.output, written.errors, defaulted.errors] {
            for secret in secrets {
                XCTAssertFalse(text.lowercased().contains(Hex.encode(secret).prefix(16)), "no key byte is printed")
                XCTAssertFalse(text.contains(Data(secret).base64EncodedString()))
            }
        }
    }

    func testSignInKeyAddsTheVerifierToAnOlderAccountOnce() throws {
        let base = try folder()
        let directory = AccountDirectory(path: base + "/account")
        try directory.create()
        let missing = try account(["sign-in-cert", "--dir", directory.path, "--out", base + "/x.signin"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.errors.contains("SK309"), missing.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/x.signin"))
        let added = try account(["sign-in-key", "--dir", directory.path])
        XCTAssertEqual(added.status, 0, added.errors)
        XCTAssertEqual(added.output, "")
        let verifier = try directory.signInKey().verifierPublicKey
        let again = try account(["sign-in-key", "--dir", directory.path])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.errors.contains("SK309"), again.errors)
        XCTAssertEqual(try directory.signInKey().verifierPublicKey, verifier, "the pinned key is never replaced")
        XCTAssertEqual(try account(["sign-in-cert", "--dir", directory.path, "--out", base + "/x.signin"]).status, 0)
        let noAccount = try account(["sign-in-key", "--dir", base + "/nothing"])
        XCTAssertEqual(noAccount.status, 1)
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/nothing/sign-in.key"))
    }

    func testRejectACredentialOverAFileOrFromAnExposedKey() throws {
        let base = try folder()
        let path = base + "/account"
        XCTAssertEqual(try account(["create", "--dir", path]).status, 0)
        let out = base + "/taken"
        XCTAssertTrue(FileManager.default.createFile(atPath: out, contents: Data("keep".utf8)))
        let over = try account(["sign-in-cert", "--dir", path, "--out", out])
        XCTAssertEqual(over.status, 1)
        XCTAssertTrue(over.errors.contains("SK309"), over.errors)
        XCTAssertEqual(FileManager.default.contents(atPath: out), Data("keep".utf8), "an existing file is never overwritten")
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path + "/sign-in.key")
        let exposed = try account(["sign-in-cert", "--dir", path, "--out", base + "/new.signin"])
        XCTAssertEqual(exposed.status, 1)
        XCTAssertTrue(exposed.errors.contains("SK307 keyFileExposed"), exposed.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/new.signin"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path + "/sign-in.key")
        XCTAssertEqual(try account(["sign-in-cert", "--dir", path, "--out", base + "/new.signin"]).status, 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: base + "/new.signin")
        XCTAssertThrowsError(try SignInCredential.read(from: base + "/new.signin")) {
            XCTAssertEqual(($0 as? SyncKernelError)?.code, .keyFileExposed)
        }
    }

    func testRevokeMarksAnUnusedCredentialRevokedAndRejectsOneOfAnotherAccountOrUsedOrBadUsage() throws {
        let base = try folder()
        let path = base + "/account"
        XCTAssertEqual(try account(["create", "--dir", path]).status, 0)
        XCTAssertEqual(try account(["create", "--dir", base + "/other"]).status, 0)
        let out = base + "/phone.signin"
        XCTAssertEqual(try account(["sign-in-cert", "--dir", path, "--out", out]).status, 0)
        XCTAssertEqual(try account(["sign-in-cert", "--dir", base + "/other", "--out", base + "/other.signin"]).status, 0)
        let foreign = try account(["sign-in-cert", "--dir", path, "--revoke", base + "/other.signin"])
        XCTAssertEqual(foreign.status, 1)
        XCTAssertTrue(foreign.errors.contains("SK210"), foreign.errors)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/sign-in.ledger"), "a refused revocation writes nothing")
        let revoked = try account(["sign-in-cert", "--dir", path, "--revoke", out])
        XCTAssertEqual(revoked.status, 0, revoked.errors)
        XCTAssertEqual(revoked.output, "")
        let credential = try SignInCredential.read(from: out)
        let id = try XCTUnwrap(credential.id)
        XCTAssertTrue(revoked.errors.contains("revoked the sign-in credential \(id)"), revoked.errors)
        XCTAssertEqual(try mode(path + "/sign-in.ledger"), 0o600)
        XCTAssertEqual(try AccountDirectory(path: path).signInLedger().mark(of: id), .revoked)
        XCTAssertEqual(try account(["sign-in-cert", "--dir", path, "--revoke", out]).status, 0, "revoking twice changes nothing")
        for arguments in [["sign-in-cert", "--dir", path, "--revoke", out, "--out", base + "/f"],
                          ["sign-in-cert", "--dir", path, "--revoke", out, "--valid-for", "600"], ["sign-in-cert", "--dir", path, "--revoke", ""]] {
            XCTAssertEqual(try account(arguments).status, 64, "\(arguments)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/f"))
    }

    func testRejectBadUsage() throws {
        let base = try folder()
        let path = base + "/account"
        for arguments in [["sign-in-cert", "--dir", path], ["sign-in-cert", "--out", base + "/f"],
                          ["sign-in-cert", "--dir", path, "--out", base + "/f", "--valid-for", "59"],
                          ["sign-in-cert", "--dir", path, "--out", base + "/f", "--valid-for", "2592001"],
                          ["sign-in-cert", "--dir", path, "--out", base + "/f", "--name", "x"], ["sign-in-key"],
                          ["sign-in-key", "--dir", path, "--out", base + "/f"], ["sign-in", "--dir", path]] {
            let result = try account(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments)")
            XCTAssertEqual(result.output, "")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "nothing written on bad usage")
        XCTAssertFalse(FileManager.default.fileExists(atPath: base + "/f"))
    }
}
