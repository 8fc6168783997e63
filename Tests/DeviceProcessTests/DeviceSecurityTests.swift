import FleetSimulation
import Foundation
import NatsRelay
import NotebookNamespace
import SyncEnvelope
import SyncKernel
import TestServerSupport
import TestServers
import XCTest

/// Hostile envelopes published raw onto a running device process's inbox through a plain NATS
/// connection: each is dropped before any frame parsing with its reason in the `--events json`
/// stream and counted in the status, nothing is written, and the process keeps running; a replay
/// is dropped also after the device restarts; a frame of another schema in a valid envelope is
/// reported and writes nothing. The same frame, properly sealed, then writes its row (so the
/// hostile copies carried a frame that would have written).
final class DeviceSecurityTests: XCTestCase {
    /// What the test holds: the laptop's process, the account's keys, a plain connection.
    private struct Setup {
        let fleet: ProcessFleet
        let laptop: DeviceProcess
        let rogue: NatsRelayConnection
        let directory: AccountDirectory
        let account: AccountMaterial
        let laptopKeys: EnvelopeKeys
        let phoneKeys: EnvelopeKeys
        let phoneSealer: EnvelopeSealer
        let schema: SchemaFingerprint
    }

    private func setUp(server: NatsServerProcess, eachDrop: Bool = true) async throws -> Setup {
        let fleet = try await ProcessFleet(devices: ["laptop", "phone", "tablet"])
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account,
                                                    relay: [server.url], extra: eachDrop ? ["--each-drop"] : [])
        addTeardownBlock { await laptop.stop() }
        let connected = await laptop.waitForEvents("connected")
        XCTAssertTrue(connected)
        let rogue = try NatsRelayConnection(options: NatsRelayOptions(servers: [server.url]), inbox: "sk.test.rogue")
        addTeardownBlock { rogue.close() }
        let directory = AccountDirectory(path: fleet.account)
        let phoneKeys = try directory.envelopeKeys(name: "phone")
        return Setup(fleet: fleet, laptop: laptop, rogue: rogue, directory: directory, account: try directory.account(),
                     laptopKeys: try directory.envelopeKeys(name: "laptop"), phoneKeys: phoneKeys,
                     phoneSealer: EnvelopeSealer(keys: phoneKeys, roster: try directory.roster(for: phoneKeys)),
                     schema: try NamespaceSet(FleetSimulation.standardNamespaces).schema)
    }

    /// A `reconcile_resp` from the phone carrying one note: a frame that writes a row wherever
    /// a device of the account accepts it.
    private func writingFrame(_ setup: Setup) throws -> [UInt8] {
        let store = try KernelStore(path: setup.fleet.directory + "/source.sqlite",
                                    namespaces: NamespaceSet(FleetSimulation.standardNamespaces))
        defer { store.close() }
        try store.configureDevice(setup.phoneKeys.device)
        let when = Date(timeIntervalSince1970: 1_700_000_000)
        let note = Note(id: [UInt8](repeating: 5, count: 16), title: "hostile", body: "must not land", createdAt: when, updatedAt: when)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
        let response = try XCTUnwrap(try store.respond(toKeys: [note.id], namespace: NotebookNamespace.name, isFinal: true).first)
        return SyncFrame(account: setup.account.userIDHash, schema: setup.schema, body: .reconcileResponse(response)).encoded()
    }

    private func random(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: .min ... .max) }
    }

    /// An inside built by hand and sealed to the laptop, as an attacker holding these keys could.
    private func forge(_ setup: Setup, _ frame: [UInt8], certificate: SenderCertificate, signer: DeviceKeys,
                       macKey: [UInt8]) throws -> [UInt8] {
        let inside = try XCTUnwrap(EnvelopeFormat.inside(certificate: certificate, recipient: setup.laptopKeys.device, frameID: random(16),
                                                         timestamp: SystemWallClock().millisecondsSince1970, frame: frame,
                                                         signingKey: signer.signing.secretKey, macKey: macKey))
        return [1, 0] + (try XCTUnwrap(Sodium.seal(inside, to: setup.laptopKeys.certificate.envelopeKey, ephemeralSeed: random(32))))
    }

    /// Publishes `envelope` on the laptop's inbox and waits for the drop event with `reason`.
    private func assertDropped(_ setup: Setup, _ envelope: [UInt8], _ reason: String,
                               file: StaticString = #filePath, line: UInt = #line) async throws {
        let before = setup.laptop.events("envelope_dropped").count
        try setup.rogue.publish(envelope, to: setup.laptopKeys.inbox.value)
        let seen = await setup.laptop.waitForEvents("envelope_dropped", count: before + 1)
        XCTAssertTrue(seen, "no drop reported for \(reason)", file: file, line: line)
        let event = setup.laptop.events("envelope_dropped").dropFirst(before).first
        XCTAssertEqual(event?["reason"] as? String, reason, file: file, line: line)
        XCTAssertEqual(event?["bytes"] as? Int, envelope.count, file: file, line: line)
        XCTAssertFalse(setup.laptop.program.hasExited, "the device survives \(reason)", file: file, line: line)
    }

    func testRejectHostileEnvelopesOnTheInboxOfARunningDevice() async throws {
        let server = try await startNatsServer()
        let setup = try await setUp(server: server)
        let before = try await setup.laptop.status()
        let frame = try writingFrame(setup)
        let mac = setup.laptopKeys.channel.mac
        let expiry = SystemWallClock().millisecondsSince1970 / 1_000 + 86_400

        let tablet = try setup.directory.certificate(name: "tablet").device
        try await assertDropped(setup, try setup.phoneSealer.seal(frame, to: tablet, now: SystemWallClock().millisecondsSince1970).bytes,
                                "unopenable")

        let other = try AccountMaterial.generate()
        let stranger = try DeviceKeys.generate()
        try await assertDropped(setup, try forge(setup, frame, certificate: try other.issue(for: stranger, expiresAt: expiry), signer: stranger,
                                                 macKey: try ChannelKeys(accountSeed: other.seed).mac), "foreignAccount")

        let intruder = try DeviceKeys.generate()
        let fakeIssuer = try XCTUnwrap(Sodium.signingKeyPair(seed: random(32)))
        let body = SenderCertificate.body(device: intruder.device, envelopeKey: intruder.envelopePublicKey,
                                          userIDHash: setup.account.userIDHash, expiresAt: expiry)
        let forged = SenderCertificate(device: intruder.device, envelopeKey: intruder.envelopePublicKey, userIDHash: setup.account.userIDHash,
                                       expiresAt: expiry, signature: try XCTUnwrap(Sodium.sign(SenderCertificate.signedMessage(body: body),
                                                                                               secretKey: fakeIssuer.secretKey)))
        try await assertDropped(setup, try forge(setup, frame, certificate: forged, signer: intruder, macKey: mac), "badCertificate")

        let lapsed = try DeviceKeys.generate()
        let expired = try setup.account.issue(for: lapsed, expiresAt: SystemWallClock().millisecondsSince1970 / 1_000 - 60)
        try await assertDropped(setup, try forge(setup, frame, certificate: expired, signer: lapsed, macKey: mac), "expiredCertificate")

        let phoneDevice = try setup.directory.deviceKeys(name: "phone")
        let wrongSeed = try EnvelopeKeys(accountSeed: random(32), issuerPublicKey: setup.account.issuerPublicKey, device: phoneDevice,
                                         certificate: try setup.directory.certificate(name: "phone"))
        let badMAC = EnvelopeSealer(keys: wrongSeed, roster: try setup.directory.roster(for: setup.phoneKeys))
        try await assertDropped(setup, try badMAC.seal(frame, to: setup.laptopKeys.device, now: SystemWallClock().millisecondsSince1970).bytes,
                                "badMAC")

        try await assertDropped(setup, [1, 0] + random(100), "truncated")
        try await assertDropped(setup, [1, 0] + [UInt8](repeating: 0, count: SealedEnvelope.maxBytes - 1), "oversized")

        let heartbeat = SyncFrame(account: setup.account.userIDHash, schema: setup.schema, body: .heartbeat).encoded()
        let once = try setup.phoneSealer.seal(heartbeat, to: setup.laptopKeys.device, now: SystemWallClock().millisecondsSince1970).bytes
        try setup.rogue.publish(once, to: setup.laptopKeys.inbox.value)
        try await assertDropped(setup, once, "replayed")

        let otherSchema = SchemaFingerprint(value: setup.schema.value ^ 1)
        let digest = StateDigest(layout: .setHash, schema: otherSchema, namespaces: ["notebook"], roots: [[UInt8](repeating: 0, count: 32)])
        let mismatched = SyncFrame(account: setup.account.userIDHash, schema: otherSchema,
                                   body: .stateDigest(digest: digest.encoded(), probe: false, changes: [0])).encoded()
        try setup.rogue.publish(try setup.phoneSealer.seal(mismatched, to: setup.laptopKeys.device,
                                                           now: SystemWallClock().millisecondsSince1970).bytes,
                                to: setup.laptopKeys.inbox.value)
        let reported = await setup.laptop.waitForEvents("schema_mismatch")
        XCTAssertTrue(reported, "a valid envelope carrying a digest of another schema is reported")

        let after = try await setup.laptop.status()
        XCTAssertEqual(ProcessFleet.namespaces(after), ProcessFleet.namespaces(before), "nothing was written")
        let envelopes = try XCTUnwrap(after["envelopes"] as? [String: Any])
        XCTAssertEqual(envelopes["dropped"] as? [String: Int],
                       ["unopenable": 1, "foreignAccount": 1, "badCertificate": 1, "expiredCertificate": 1, "badMAC": 1, "truncated": 1,
                        "oversized": 1, "replayed": 1], "each drop counted under its reason")
        XCTAssertEqual(envelopes["accepted"] as? Int, 2, "the heartbeat once and the other schema's digest")
        XCTAssertTrue(setup.laptop.events("applied").isEmpty, "no frame was merged")

        // The replay is remembered across a restart of the device.
        let quit = await setup.laptop.quit()
        XCTAssertEqual(quit, 0)
        try await setup.laptop.restart()
        let reconnected = await setup.laptop.waitForEvents("connected")
        XCTAssertTrue(reconnected)
        try await assertDropped(setup, once, "replayed")

        // The same writing frame, sealed by the phone itself, is accepted and writes its row.
        try setup.rogue.publish(try setup.phoneSealer.seal(frame, to: setup.laptopKeys.device,
                                                           now: SystemWallClock().millisecondsSince1970).bytes,
                                to: setup.laptopKeys.inbox.value)
        let applied = await setup.laptop.waitForEvents("applied")
        XCTAssertTrue(applied)
        XCTAssertEqual(setup.laptop.events("applied").first?["rows"] as? Int, 1)
        XCTAssertFalse(setup.laptop.program.hasExited)
    }

    /// A flood of junk on the inbox of a device that does not report each drop: every envelope
    /// is counted, at the gate by reason or at the relay layer, in the status; the standard error
    /// carries one summary line per period, never a line per envelope; no per-drop event is printed.
    func testAFloodOfJunkIsCountedAndSummarisedNeverLoggedPerEnvelope() async throws {
        let server = try await startNatsServer()
        let setup = try await setUp(server: server, eachDrop: false)
        let (wrongVersion, short) = (600, 400)
        for _ in 0..<wrongVersion {
            try setup.rogue.publish([9, 0] + random(SealedEnvelope.overheadBytes + 100), to: setup.laptopKeys.inbox.value)
        }
        for _ in 0..<short { try setup.rogue.publish([1, 0] + random(20), to: setup.laptopKeys.inbox.value) }
        try setup.rogue.flush()
        let summarised = await setup.laptop.waitFor(timeout: .seconds(30)) { lines in
            let summaries = lines.compactMap(DeviceProcess.object).filter { $0["event"] as? String == "drops_summarised" }
            let counted = summaries.reduce(0) { total, summary in
                total + (summary["envelopes"] as? [String: Int] ?? [:]).values.reduce(0, +)
                    + (summary["relay"] as? [String: Int] ?? [:]).values.reduce(0, +)
            }
            return counted >= wrongVersion + short
        }
        XCTAssertTrue(summarised, "the summaries account for every envelope; log:\n\(setup.laptop.program.errors.tail())")
        let status = try await setup.laptop.status()
        let dropped = (status["envelopes"] as? [String: Any])?["dropped"] as? [String: Int] ?? [:]
        let relayDropped = status["relay_dropped"] as? [String: Int] ?? [:]
        XCTAssertEqual(dropped.values.reduce(0, +) + relayDropped.values.reduce(0, +), wrongVersion + short,
                       "every envelope counted once: \(dropped) \(relayDropped)")
        XCTAssertLessThanOrEqual(dropped["unknownFormat", default: 0], wrongVersion)
        XCTAssertLessThanOrEqual(dropped["truncated", default: 0], short)
        XCTAssertTrue(setup.laptop.events("envelope_dropped").isEmpty, "no event per drop unless asked for")
        let summaries = setup.laptop.events("drops_summarised").count
        let logLines = setup.laptop.program.errors.lines.filter { $0.contains("dropped") }
        XCTAssertGreaterThan(summaries, 0)
        XCTAssertLessThanOrEqual(logLines.count, summaries, "one log line per summary: \(logLines)")
        XCTAssertTrue(logLines.allSatisfy { $0.contains("envelopes (") || $0.contains("the relay layer dropped") }, "\(logLines)")
        XCTAssertFalse(setup.laptop.program.hasExited)
    }
}
