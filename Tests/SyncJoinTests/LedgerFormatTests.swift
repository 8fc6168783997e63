import Foundation
@testable import SyncEnvelope
@testable import SyncJoin
import SyncKernel
import XCTest

/// The bytes of the sign-in ledger, the members' notices and the refusal reply: a golden
/// ledger, exact round trips, every other layout refused, and merges that only add knowledge.
final class LedgerFormatTests: XCTestCase {
    private let discovery = try? DiscoveryKeys(accountSeed: [UInt8](repeating: 0x33, count: 32))
    private let requestID = [UInt8](repeating: 0x44, count: 16)
    private let ephemeralSecret = [UInt8](repeating: 0x66, count: 32)
    private let nonce = [UInt8](repeating: 0xaa, count: 24)

    private func id(_ byte: UInt8) throws -> CredentialID {
        try XCTUnwrap(CredentialID(bytes: [UInt8](repeating: byte, count: 16)[...]))
    }

    private func golden(_ key: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/sign_in_ledger.golden")
        let line = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix(key + " ") }
        return String(try XCTUnwrap(line).dropFirst(key.count + 1))
    }

    /// The golden ledger: two entries.
    private func goldenLedger() throws -> SignInLedger {
        var ledger = SignInLedger()
        ledger.record(SignInLedger.Entry(credential: try id(2), expiresAt: Int64.max, mark: .revoked))
        ledger.record(SignInLedger.Entry(credential: try id(1), expiresAt: 1_700_000_600, mark: .spent))
        return ledger
    }

    func testTheLedgerMatchesItsGoldenVectorAndReadsBackExactly() throws {
        let ledger = try goldenLedger()
        XCTAssertEqual(Hex.encode(ledger.encoded()), try golden("encoding"))
        XCTAssertEqual(Hex.encode(ledger.fileEncoded()), try golden("file"))
        XCTAssertEqual(SignInLedger(parsing: ledger.encoded()[...]), ledger)
        XCTAssertEqual(try SignInLedger(decodingFile: ledger.fileEncoded()), ledger)
        XCTAssertEqual(SignInLedger(parsing: [0, 0][...]), SignInLedger())
    }

    func testRejectLedgersOfAnyOtherLayout() throws {
        let body = try goldenLedger().encoded()
        var unsorted = body
        unsorted.replaceSubrange(2..<27, with: body[27..<52])
        unsorted.replaceSubrange(27..<52, with: body[2..<27])
        var twice = [UInt8(0), 2] + Array(body[2..<27]) + Array(body[2..<27])
        twice[1] = 2
        var badMark = body
        badMark[26] = 3
        var zeroMark = body
        zeroMark[26] = 0
        var highExpiry = body
        highExpiry[18] = 0x80
        let tooMany = [UInt8(0), UInt8(SignInLedger.maxEntries + 1)] + [UInt8](repeating: 0, count: (SignInLedger.maxEntries + 1) * 25)
        let cases: [(String, [UInt8])] = [
            ("empty", []), ("one byte", [0]), ("short", Array(body.dropLast())), ("long", body + [0]),
            ("a count without its entries", [0, 1]), ("unsorted", unsorted), ("an id twice", twice), ("mark 3", badMark),
            ("mark 0", zeroMark), ("an expiry beyond Int64.max", highExpiry), ("more than the most entries", tooMany),
        ]
        for (name, bytes) in cases { XCTAssertNil(SignInLedger(parsing: bytes[...]), name) }
        for file in [Array("SKSILG".utf8) + [0, 2] + body, Array("SKSIGN".utf8) + [0, 1] + body, Array(body)] {
            XCTAssertThrowsError(try SignInLedger(decodingFile: file)) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .malformedKeyFile)
            }
        }
    }

    func testMergesOnlyAddKnowledgeEndTheSameInAnyOrderAndKeepTheNewestEntries() throws {
        let entropy = EntropySource.seeded(21)
        for _ in 0..<50 {
            var ledgers: [SignInLedger] = []
            for _ in 0..<3 {
                var ledger = SignInLedger()
                for draw in entropy.bytes(Int(entropy.bytes(1)[0] % 31)) {
                    ledger.record(SignInLedger.Entry(credential: try id(draw % 41), expiresAt: 1_700_000_000,
                                                     mark: draw & 0x80 == 0 ? .spent : .revoked))
                }
                ledgers.append(ledger)
            }
            var forward = ledgers[0]
            forward.merge(ledgers[1])
            forward.merge(ledgers[2])
            var backward = ledgers[2]
            backward.merge(ledgers[1])
            backward.merge(ledgers[0])
            XCTAssertEqual(forward, backward, "any order of merges ends in the same ledger")
            for ledger in ledgers {
                XCTAssertFalse(ledger.teaches(forward), "the merge knows everything each knew")
                for entry in ledger.entries where entry.mark == .spent {
                    XCTAssertEqual(forward.mark(of: entry.credential), .spent, "spent wins over revoked")
                }
            }
        }
        var full = SignInLedger()
        for index in 0..<(SignInLedger.maxEntries + 1) {
            full.record(SignInLedger.Entry(credential: try id(UInt8(index)), expiresAt: 1_700_000_000 + Int64(index), mark: .spent))
        }
        XCTAssertEqual(full.entries.count, SignInLedger.maxEntries)
        XCTAssertNil(full.mark(of: try id(0)), "the entry expiring first is forgotten")
        XCTAssertEqual(full.pruned(atMillis: 1_700_000_010_000).entries.count, SignInLedger.maxEntries - 10, "expired at their second")
    }

    func testANoticeOpensOnlyWithTheAccountsDiscoveryKeysAndInExactlyItsLayout() throws {
        let discovery = try XCTUnwrap(discovery)
        let other = try DiscoveryKeys(accountSeed: [UInt8](repeating: 0x34, count: 32))
        let notice = try XCTUnwrap(JoinNotice(kind: .approved, requestID: requestID, sender: "laptop", ledger: try goldenLedger()))
        let sealed = try XCTUnwrap(notice.sealed(with: discovery, nonce: nonce))
        XCTAssertEqual(JoinNotice.open(sealed, with: discovery), notice)
        XCTAssertEqual(sealed.count, 62 + "laptop".utf8.count + 2 * SignInLedger.entryBytes, "62 bytes, the name, 25 an entry")
        XCTAssertNil(JoinNotice.open(sealed, with: other), "another account's keys")
        XCTAssertNil(JoinNotice.open(try XCTUnwrap(notice.sealed(with: other, nonce: nonce)), with: discovery), "made by another account")
        for index in sealed.indices {
            var flipped = sealed
            flipped[index] ^= 0x01
            XCTAssertNil(JoinNotice.open(flipped, with: discovery), "byte \(index) altered")
        }
        XCTAssertNil(JoinNotice.open(Array(sealed.dropLast()), with: discovery), "truncated")
        XCTAssertNil(JoinNotice.open([JoinNotice.tag] + [UInt8](repeating: 0, count: JoinNotice.maxSealedBytes), with: discovery), "too long")
        XCTAssertNil(JoinNotice.open([], with: discovery))
        let good = notice.inside()
        var ledgerWithID = good
        ledgerWithID[1] = JoinNotice.Kind.ledger.rawValue
        var badKind = good
        badKind[1] = 4
        var badVersion = good
        badVersion[0] = 2
        var badName = good
        badName[19] = UInt8(ascii: ".")
        var longName = good
        longName[18] = 200
        for (name, inside) in [("a ledger notice naming a request", ledgerWithID), ("kind 4", badKind), ("version 2", badVersion),
                               ("a name that is not a device name", badName), ("a name past the end", longName),
                               ("trailing bytes", good + [0]), ("no ledger", Array(good.prefix(25)))] {
            let box = try XCTUnwrap(JoinCrypto.box(inside, nonce: nonce, to: discovery.publicKey, from: discovery.secretKey))
            XCTAssertNil(JoinNotice.open([JoinNotice.tag] + nonce + box, with: discovery), name)
        }
        XCTAssertNil(JoinNotice(kind: .ledger, requestID: [1], sender: "laptop", ledger: SignInLedger()))
        XCTAssertNil(JoinNotice(kind: .ledger, requestID: requestID, sender: "a b", ledger: SignInLedger()))
    }

    func testSeededMutantsOfANoticeInsideOpenToExactlyTheirBytesOrNothing() throws {
        let discovery = try XCTUnwrap(discovery)
        let good = try XCTUnwrap(JoinNotice(kind: .rejected, requestID: requestID, sender: "phone", ledger: try goldenLedger())).inside()
        let entropy = EntropySource.seeded(31)
        var opened = 0
        for index in 0..<1_000 {
            var inside = good
            let draws = entropy.bytes(5)
            for flip in 0..<(1 + Int(draws[0] % 3)) {
                inside[Int(draws[1 + flip]) % inside.count] ^= draws[4] | 1
            }
            if draws[0] & 0x80 != 0 { inside.removeLast(Int(draws[1]) % 30) }
            let box = try XCTUnwrap(JoinCrypto.box(inside, nonce: nonce, to: discovery.publicKey, from: discovery.secretKey))
            guard let notice = JoinNotice.open([JoinNotice.tag] + nonce + box, with: discovery) else { continue }
            opened += 1
            XCTAssertEqual(notice.inside(), inside, "an opened mutant is exactly its bytes (mutant \(index))")
            XCTAssertEqual(SignInLedger(parsing: notice.ledger.encoded()[...]), notice.ledger, "mutant \(index)")
        }
        XCTAssertGreaterThan(opened, 0, "mutants of the request id and the ledger's expiries still open")
    }

    func testEachRefusalRoundTripsAndRejectRefusalsOfAnyOtherBody() throws {
        let discovery = try XCTUnwrap(discovery)
        let ephemeralKey = try XCTUnwrap(Sodium.envelopePublicKey(secretKey: ephemeralSecret))
        XCTAssertEqual(SignInRefusal.allCases.map(\.rawValue), [1, 2, 3])
        XCTAssertEqual(SignInRefusal.allCases.map(\.word), ["spent", "revoked", "busy"])
        for refusal in SignInRefusal.allCases {
            XCTAssertEqual(JoinReply.refused(refusal).inside(requestID: requestID), [4] + requestID + [refusal.rawValue])
            let sealed = try XCTUnwrap(JoinReply.refused(refusal).sealed(requestID: requestID, to: ephemeralKey, from: discovery, nonce: nonce))
            XCTAssertEqual(sealed.count, JoinReply.minSealedBytes + 1)
            guard case .opened(.refused(let opened)) = JoinReply.open(sealed, requestID: requestID, discoveryKey: discovery.publicKey,
                                                                      ephemeralSecret: ephemeralSecret) else { return XCTFail("\(refusal)") }
            XCTAssertEqual(opened, refusal)
        }
        for body in [[UInt8](), [0], [4], [9], [1, 1]] {
            let box = try XCTUnwrap(JoinCrypto.box([4] + requestID + body, nonce: nonce, to: ephemeralKey, from: discovery.secretKey))
            let opening = JoinReply.open([1] + nonce + box, requestID: requestID, discoveryKey: discovery.publicKey,
                                         ephemeralSecret: ephemeralSecret)
            guard case .dropped(.malformed) = opening else { return XCTFail("body \(body): \(opening)") }
        }
    }

    func testCredentialIDsNameTheCertificateAndPrintShort() throws {
        let key = try SignInKey(verifierSeed: [UInt8](repeating: 0x11, count: 32), identity: [UInt8](repeating: 0x22, count: 32))
        let first = try XCTUnwrap(CredentialID(certificate: key.issue(expiresAt: 1_700_000_600)))
        let again = try XCTUnwrap(CredentialID(certificate: key.issue(expiresAt: 1_700_000_600)))
        let later = try XCTUnwrap(CredentialID(certificate: key.issue(expiresAt: 1_700_000_601)))
        XCTAssertEqual(first, again)
        XCTAssertNotEqual(first, later)
        XCTAssertEqual(first.description.count, 8)
        XCTAssertEqual(first.hex.count, 32)
        XCTAssertNil(CredentialID(bytes: [1, 2][...]))
    }
}
