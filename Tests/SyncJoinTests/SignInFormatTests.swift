import Foundation
@testable import SyncEnvelope
@testable import SyncJoin
import SyncKernel
import XCTest

/// The join protocol's bytes: golden vectors of every encoding (the certificate, the credential
/// file, the discovery subject, a request inside and sealed, and each reply sealed under fixed
/// keys and nonces), their exact round trips, the refusal of every other layout, and renderings
/// that show no secret.
final class SignInFormatTests: XCTestCase {
    /// Fixed keys and values every vector is built from.
    private struct Vectors {
        let signInKey: SignInKey
        let certificate: SignInCertificate
        let discovery: DiscoveryKeys
        let credential: SignInCredential
        let ephemeralSecret = [UInt8](repeating: 0x66, count: 32)
        let device: DeviceKeys
        let request: SignInRequest
        let account: AccountMaterial
        let grant: SignInGrant
        let nonce = [UInt8](repeating: 0xaa, count: 24)

        init() throws {
            signInKey = try SignInKey(verifierSeed: [UInt8](repeating: 0x11, count: 32), identity: [UInt8](repeating: 0x22, count: 32))
            certificate = try signInKey.issue(expiresAt: 1_700_000_600)
            discovery = try DiscoveryKeys(accountSeed: [UInt8](repeating: 0x33, count: 32))
            credential = try SignInCredential(certificate: certificate, discoveryKey: discovery.publicKey)
            device = try DeviceKeys(signingSeed: [UInt8](repeating: 0x77, count: 32), envelopeSecretKey: [UInt8](repeating: 0x88, count: 32))
            let ephemeralKey = try XCTUnwrap(Sodium.envelopePublicKey(secretKey: [UInt8](repeating: 0x66, count: 32)))
            request = try SignInRequest(requestID: [UInt8](repeating: 0x44, count: 16), replyToken: [UInt8](repeating: 0x55, count: 16),
                                        ephemeralKey: ephemeralKey, device: device.device, envelopeKey: device.envelopePublicKey,
                                        timestamp: 1_700_000_000_000, deadline: 1_700_000_180_000, deviceName: "phone",
                                        certificate: certificate)
            account = try AccountMaterial(seed: [UInt8](repeating: 0x33, count: 32), issuerSeed: [UInt8](repeating: 0xbb, count: 32))
            let laptop = try DeviceKeys(signingSeed: [UInt8](repeating: 0xcc, count: 32), envelopeSecretKey: [UInt8](repeating: 0xdd, count: 32))
            grant = try SignInGrant(account: account, signInKey: signInKey,
                                    certificate: account.issue(for: device, expiresAt: 1_731_536_000),
                                    siblings: ["laptop": account.issue(for: laptop, expiresAt: 1_731_536_000)])
        }
    }

    /// The value on the `key` line of `Fixtures/<name>.golden`.
    private func golden(_ name: String, _ key: String = "encoding") throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name).golden")
        let text = try String(contentsOf: url, encoding: .utf8)
        let line = text.split(separator: "\n").first { $0.hasPrefix(key + " ") }
        return String(try XCTUnwrap(line, "\(name).golden has a '\(key)' line").dropFirst(key.count + 1))
    }

    private func assertGolden(_ bytes: [UInt8], _ name: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(Hex.encode(bytes), try golden(name), "\(name): the encoding changed", file: file, line: line)
    }

    func testTheCertificateAndTheCredentialFileMatchTheirGoldenVectors() throws {
        let vectors = try Vectors()
        try assertGolden(vectors.certificate.encoded(), "sign_in_certificate")
        let certificateBytes = try XCTUnwrap(Hex.decode(golden("sign_in_certificate")))
        XCTAssertEqual(certificateBytes.count, SignInCertificate.byteCount)
        XCTAssertEqual(SignInCertificate(parsing: certificateBytes[...]), vectors.certificate)
        XCTAssertTrue(vectors.certificate.verify(verifier: vectors.signInKey.verifierPublicKey))
        try assertGolden(vectors.credential.encoded(), "sign_in_credential")
        let file = try XCTUnwrap(Hex.decode(golden("sign_in_credential")))
        XCTAssertEqual(file.count, SignInCredential.fileBytes)
        XCTAssertEqual(try SignInCredential(decodingFile: file), vectors.credential)
        XCTAssertEqual(vectors.credential.discoverySubject.value, try golden("sign_in_credential", "subject"))
        XCTAssertEqual(vectors.discovery.subject, vectors.credential.discoverySubject)
        XCTAssertTrue(vectors.discovery.subject.value.hasPrefix(JoinSubject.discoveryPrefix))
        XCTAssertEqual(try SignInKey(decodingFile: vectors.signInKey.encoded()).verifierPublicKey, vectors.signInKey.verifierPublicKey)
    }

    func testARequestMatchesItsGoldenVectorsInsideAndSealed() throws {
        let vectors = try Vectors()
        try assertGolden(vectors.request.encoded(), "sign_in_request")
        let inside = try XCTUnwrap(Hex.decode(golden("sign_in_request")))
        XCTAssertEqual(SignInRequest(parsing: inside), vectors.request)
        let sealed = try XCTUnwrap(vectors.request.sealed(to: vectors.discovery.publicKey, ephemeralSeed: [UInt8](repeating: 0x99, count: 32)))
        try assertGolden(sealed, "sign_in_request_sealed")
        XCTAssertEqual(sealed.count, SignInRequest.sealedBytes)
        for name in ["a", String(repeating: "z", count: 64)] {
            let other = try SignInRequest(requestID: vectors.request.requestID, replyToken: vectors.request.replyToken,
                                          ephemeralKey: vectors.request.ephemeralKey, device: vectors.device.device,
                                          envelopeKey: vectors.device.envelopePublicKey, timestamp: 0, deadline: 1, deviceName: name,
                                          certificate: vectors.certificate)
            XCTAssertEqual(SignInRequest(parsing: other.encoded()), other, "a name of \(name.count) bytes reads back")
            let otherSealed = try XCTUnwrap(other.sealed(to: vectors.discovery.publicKey, ephemeralSeed: [UInt8](repeating: 1, count: 32)))
            XCTAssertEqual(otherSealed.count, SignInRequest.sealedBytes, "the length does not show the name's")
        }
        XCTAssertEqual(Sodium.open(sealed[1...], publicKey: vectors.discovery.publicKey, secretKey: vectors.discovery.secretKey), inside)
        XCTAssertEqual(vectors.request.replySubject.value, JoinSubject.replyPrefix + String(repeating: "55", count: 16))
    }

    func testEachReplyMatchesItsGoldenVectorAndOpensOnlyForItsRequest() throws {
        let vectors = try Vectors()
        let replies: [(String, JoinReply)] = [
            ("join_reply_ack", .acknowledged(SignInAck(family: try XCTUnwrap(DeviceFamily("Linux"))))),
            ("join_reply_rejection", .rejected),
            ("join_reply_grant", .granted(vectors.grant)),
        ]
        for (name, reply) in replies {
            let sealed = try XCTUnwrap(reply.sealed(requestID: vectors.request.requestID, to: vectors.request.ephemeralKey,
                                                    from: vectors.discovery, nonce: vectors.nonce))
            try assertGolden(sealed, name)
            let bytes = try XCTUnwrap(Hex.decode(golden(name)))
            let opening = JoinReply.open(bytes, requestID: vectors.request.requestID, discoveryKey: vectors.discovery.publicKey,
                                         ephemeralSecret: vectors.ephemeralSecret)
            guard case .opened(let opened) = opening else { return XCTFail("\(name) opens: \(opening)") }
            XCTAssertEqual(opened.inside(requestID: vectors.request.requestID), reply.inside(requestID: vectors.request.requestID), name)
            let other = JoinReply.open(bytes, requestID: [UInt8](repeating: 0, count: 16), discoveryKey: vectors.discovery.publicKey,
                                       ephemeralSecret: vectors.ephemeralSecret)
            guard case .dropped(.otherRequest) = other else { return XCTFail("\(name) names its request: \(other)") }
            let wrongKey = JoinReply.open(bytes, requestID: vectors.request.requestID, discoveryKey: vectors.discovery.publicKey,
                                          ephemeralSecret: [UInt8](repeating: 0x67, count: 32))
            guard case .dropped(.unopenable) = wrongKey else { return XCTFail("\(name) opens for its ephemeral key only") }
        }
        XCTAssertTrue(vectors.grant.isValid(for: vectors.request, credential: vectors.credential, now: 1_700_000_000_000))
        XCTAssertFalse(vectors.grant.isValid(for: vectors.request, credential: vectors.credential, now: 1_731_536_000_000),
                       "not once the device's certificate has expired")
    }

    func testRejectRequestInsidesOfAnyOtherLayout() throws {
        let vectors = try Vectors()
        let good = vectors.request.encoded()
        var cases: [(String, [UInt8])] = [
            ("empty", []), ("one short", Array(good.dropLast())), ("one long", good + [0]), ("version", [2] + good.dropFirst()),
        ]
        for (name, index, value) in [("name length 0", 145, UInt8(0)), ("name length 6", 145, 6), ("name length 65", 145, 65),
                                     ("name byte", 146, UInt8(ascii: "/")), ("padding", 151, 1), ("padding's last byte", 209, 1),
                                     ("certificate version", 210, 2)] {
            var bytes = good
            bytes[index] = value
            cases.append((name, bytes))
        }
        var pastDeadline = good
        pastDeadline.replaceSubrange(137..<145, with: good[129..<137])
        cases.append(("deadline equal to the timestamp", pastDeadline))
        var tooLong = good
        tooLong.replaceSubrange(137..<145, with: withUnsafeBytes(of: (Int64(1_700_000_000_000) + 600_001).bigEndian) { Array($0) })
        cases.append(("a wait over 10 minutes", tooLong))
        var wrapped = good
        wrapped.replaceSubrange(129..<137, with: withUnsafeBytes(of: Int64.min.bigEndian) { Array($0) })
        wrapped.replaceSubrange(137..<145, with: withUnsafeBytes(of: Int64.max.bigEndian) { Array($0) })
        cases.append(("a wait that overflows", wrapped))
        var expiry = good
        expiry.replaceSubrange((210 + 33)..<(210 + 41), with: [UInt8](repeating: 0xff, count: 8))
        cases.append(("an expiry beyond Int64.max", expiry))
        for (name, bytes) in cases {
            XCTAssertNil(SignInRequest(parsing: bytes), name)
        }
        XCTAssertThrowsError(try SignInRequest(requestID: [1], replyToken: vectors.request.replyToken, ephemeralKey: vectors.request.ephemeralKey,
                                               device: vectors.device.device, envelopeKey: vectors.device.envelopePublicKey, timestamp: 0,
                                               deadline: 1, deviceName: "phone", certificate: vectors.certificate))
    }

    func testRejectRepliesAndGrantsOfAnyOtherLayout() throws {
        let vectors = try Vectors()
        let body = vectors.grant.encoded()
        XCTAssertNotNil(SignInGrant(parsing: body[...]))
        var cases: [(String, [UInt8])] = [("short", Array(body.dropLast())), ("long", body + [0])]
        var handle = body
        handle[72] ^= 1
        cases.append(("a handle that is not the account's", handle))
        var none = Array(body.prefix(345))
        none.append(0)
        cases.append(("no sibling", none))
        let sibling = Array(body[346...])
        var twice = Array(body.prefix(345))
        twice.append(2)
        twice += sibling + sibling
        cases.append(("a sibling twice", twice))
        var badName = body
        badName[347] = UInt8(ascii: ".")
        cases.append(("a name that is not a device name", badName))
        for (name, bytes) in cases {
            XCTAssertNil(SignInGrant(parsing: bytes[...]), name)
        }
        XCTAssertNil(SignInAck(parsing: [0][...]))
        XCTAssertNil(SignInAck(parsing: [3, 65, 66][...]))
        XCTAssertNil(SignInAck(parsing: [2, 65, 0x2f][...]))
        XCTAssertEqual(SignInAck(parsing: [2, 65, 66][...])?.family.value, "AB")
        for (length, expected) in [(JoinReply.minSealedBytes - 1, JoinReplyDropReason.undecodable),
                                   (JoinReply.maxSealedBytes + 1, .undecodable), (JoinReply.minSealedBytes, .unopenable)] {
            let opening = JoinReply.open([1] + [UInt8](repeating: 0, count: length - 1), requestID: vectors.request.requestID,
                                         discoveryKey: vectors.discovery.publicKey, ephemeralSecret: vectors.ephemeralSecret)
            guard case .dropped(let reason) = opening, reason == expected else { return XCTFail("\(length): \(opening)") }
        }
        for inside in [[UInt8(3)] + vectors.request.requestID + [0], [UInt8(4)] + vectors.request.requestID, [UInt8(2)] + vectors.request.requestID] {
            let box = try XCTUnwrap(JoinCrypto.box(inside, nonce: vectors.nonce, to: vectors.request.ephemeralKey,
                                                   from: vectors.discovery.secretKey))
            let opening = JoinReply.open([1] + vectors.nonce + box, requestID: vectors.request.requestID,
                                         discoveryKey: vectors.discovery.publicKey, ephemeralSecret: vectors.ephemeralSecret)
            guard case .dropped(.malformed) = opening else { return XCTFail("\(inside.prefix(1)): \(opening)") }
        }
    }

    func testNamesFamiliesAndIdsAreSafeToPrint() {
        XCTAssertNil(DeviceFamily(""))
        XCTAssertNil(DeviceFamily(String(repeating: "a", count: 33)))
        XCTAssertNil(DeviceFamily("Linux\n"))
        XCTAssertNil(DeviceFamily("Lïnux"))
        XCTAssertEqual(DeviceFamily("iPhone 15 Pro")?.value, "iPhone 15 Pro")
        XCTAssertEqual(ApprovalID(bytes: [0xde, 0xad, 0xbe, 0xef]).value, "deadbeef")
        XCTAssertEqual(ApprovalID(parsing: "DEADBEEF"), ApprovalID(bytes: [0xde, 0xad, 0xbe, 0xef]))
        for text in ["", "deadbee", "deadbeef0", "deadbeeg", " deadbeef"] { XCTAssertNil(ApprovalID(parsing: text), text) }
    }

    func testNoRenderingShowsASecret() throws {
        let vectors = try Vectors()
        let secrets = [vectors.account.seed, vectors.account.issuerSeed, [UInt8](repeating: 0x11, count: 32),
                       vectors.signInKey.identity, vectors.discovery.secretKey]
        let renderings: [Any] = [vectors.signInKey, vectors.grant, vectors.discovery, vectors.credential, vectors.certificate,
                                 JoinReply.granted(vectors.grant)]
        for value in renderings {
            var dumped = ""
            dump(value, to: &dumped)
            for text in ["\(value)", String(reflecting: value), dumped] {
                for secret in secrets {
                    XCTAssertFalse(text.lowercased().contains(Hex.encode(secret.prefix(8))), "\(type(of: value)) shows a secret: \(text)")
                    XCTAssertFalse(text.contains("\(secret.prefix(4).map { $0 })".dropLast()), "\(type(of: value)) shows bytes: \(text)")
                }
            }
        }
        XCTAssertEqual("\(vectors.certificate)", "SignInCertificate(expiresAt: 1700000600)")
        XCTAssertEqual("\(vectors.signInKey)", "SignInKey(secrets redacted)")
    }
}
