import Foundation
@testable import SyncEnvelope
@testable import SyncJoin
import SyncKernel
import TestServerSupport
import XCTest

/// A new device and a sibling through the whole protocol, in process, on a settable clock:
/// approve (the new device ends with a directory whose envelopes the sibling's gate accepts),
/// reject, silence, an approval nobody decides, re-sends, and replies that are not this request's
/// grant. Every outcome but a grant leaves nothing written on either side.
final class JoinFlowTests: XCTestCase {
    private let now = JoinWorld.now

    /// Delivers every waiting request to `responder` (when given) and every waiting reply to
    /// `requester`; returns how many requests were waiting.
    @discardableResult
    private func pump(_ world: JoinWorld, _ responder: JoinResponder?, _ requester: JoinRequester) async -> Int {
        let requests = await world.relay.take(requester.discoverySubject)
        if let responder {
            for request in requests { await responder.deliver(request) }
        }
        for reply in await world.relay.take(requester.replySubject) { await requester.deliver(reply) }
        return requests.count
    }

    /// The request inside `message`, opened with the world's discovery keys.
    private func opened(_ world: JoinWorld, _ message: [UInt8]) throws -> SignInRequest {
        let discovery = try world.discovery()
        let inside = try XCTUnwrap(Sodium.open(message[1...], publicKey: discovery.publicKey, secretKey: discovery.secretKey))
        return try XCTUnwrap(SignInRequest(parsing: inside))
    }

    /// The id of the oldest request `responder` waits on a decision for.
    private func firstPending(_ responder: JoinResponder, named name: String? = nil) async throws -> ApprovalID {
        let pending = await responder.pendingApprovals()
        return try XCTUnwrap(pending.first { name == nil || $0.deviceName == name }?.id, "a pending approval")
    }

    /// The first message waiting under `subject`.
    private func first(_ world: JoinWorld, _ subject: JoinSubject) async throws -> [UInt8] {
        let messages = await world.relay.take(subject)
        return try XCTUnwrap(messages.first, "a message on \(subject)")
    }

    private func mode(_ path: String) throws -> Int {
        try XCTUnwrap((try FileManager.default.attributesOfItem(atPath: path))[.posixPermissions] as? Int)
    }

    /// Nothing of a join is written: no directory for the new device, no staging folder, and the
    /// sibling's directory holds what it held.
    private func assertNothingWritten(_ world: JoinWorld, requesterDirectory: String = "phone-account",
                                      file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.path(requesterDirectory)), file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.path(requesterDirectory + ".joining")), file: file, line: line)
        XCTAssertEqual(world.files(under: world.sibling.path), [
            "account.key", "devices", "devices/desktop.cert", "devices/desktop.key", "devices/laptop.cert", "devices/laptop.key",
            "sign-in.key",
        ], file: file, line: line)
    }

    func testApproveGivesTheNewDeviceAnAccountDirectoryWhoseEnvelopesTheSiblingAccepts() async throws {
        let world = try JoinWorld()
        let siblingEvents = Recorder<JoinResponderEvent>()
        let deviceEvents = Recorder<JoinRequesterEvent>()
        let responder = try world.responder(events: siblingEvents)
        let requester = try world.requester(world.credential(), events: deviceEvents)
        XCTAssertEqual(requester.discoverySubject, responder.discoverySubject)
        await requester.start()
        await pump(world, responder, requester)
        let family = try XCTUnwrap(DeviceFamily("Linux laptop"))
        let acknowledged = await requester.state
        XCTAssertEqual(acknowledged, .acknowledged(family))
        let pending = await responder.pendingApprovals()
        XCTAssertEqual(pending.map(\.deviceName), ["phone"])
        XCTAssertEqual(pending.map(\.device), [requester.device])
        XCTAssertEqual(pending.map(\.deadline), [now + 180_000])
        let id = try XCTUnwrap(pending.first?.id)
        XCTAssertEqual(ApprovalID(parsing: id.value.uppercased()), id)
        XCTAssertEqual(siblingEvents.items, [.approvalRequested(pending[0])])

        world.clock.advance(by: 20_000)
        let certificate = try await responder.approve(id)
        await pump(world, responder, requester)
        guard case .granted(let joined) = await requester.state else { return XCTFail("granted") }
        let outcome = try await requester.outcome()
        XCTAssertEqual(outcome, joined)
        XCTAssertEqual(deviceEvents.items.filter(\.isOutcomeOrStep), [.requestSent(attempt: 1), .acknowledged(family), .granted(joined)])
        XCTAssertEqual(siblingEvents.items.last, .approved(id: id, device: requester.device, name: "phone"))
        let afterwards = await responder.pendingApprovals()
        XCTAssertEqual(afterwards, [])

        XCTAssertEqual(joined.name, "phone")
        XCTAssertEqual(joined.device, requester.device)
        XCTAssertEqual(joined.account, try world.sibling.account().userIDHash)
        XCTAssertEqual(world.files(under: joined.directoryPath), [
            "account.key", "devices", "devices/desktop.cert", "devices/laptop.cert", "devices/phone.cert", "devices/phone.key",
            "sign-in.key",
        ], "exactly what create and add-device would have left, with the siblings' certificates")
        XCTAssertEqual(try mode(joined.directoryPath), 0o700)
        XCTAssertEqual(try mode(joined.directoryPath + "/devices"), 0o700)
        for file in ["account.key", "sign-in.key", "devices/phone.key", "devices/phone.cert", "devices/laptop.cert"] {
            XCTAssertEqual(try mode(joined.directoryPath + "/" + file), 0o600, file)
        }
        XCTAssertEqual(try joined.directory.account().seed, try world.sibling.account().seed)
        XCTAssertEqual(try joined.directory.signInKey().verifierPublicKey, try world.sibling.signInKey().verifierPublicKey)
        XCTAssertEqual(try world.sibling.certificate(name: "phone"), certificate, "the sibling recorded the new device")
        XCTAssertEqual(try joined.directory.certificate(name: "phone"), certificate)
        XCTAssertEqual(certificate.expiresAt, (now + 20_000) / 1_000 + 365 * 86_400)

        let phone = try joined.directory.envelopeKeys(name: "phone")
        let phoneRoster = try joined.directory.roster(for: phone)
        let laptop = try world.sibling.envelopeKeys(name: "laptop")
        let laptopRoster = try world.sibling.roster(for: laptop)
        let desktop = try world.sibling.certificate(name: "desktop").device
        XCTAssertEqual(phoneRoster.devices, [laptop.device, desktop].sorted())
        XCTAssertEqual(laptopRoster.devices, [phone.device, desktop].sorted(), "the sibling's roster now holds the new device")
        let frame = SyncFrame(account: phone.userIDHash, schema: SchemaFingerprint(value: 1), body: .heartbeat).encoded()
        let toLaptop = try EnvelopeSealer(keys: phone, roster: phoneRoster).seal(frame, to: laptop.device, now: now + 30_000)
        XCTAssertEqual(toLaptop.subject, laptop.inbox)
        let laptopGate = EnvelopeGate(keys: laptop, roster: laptopRoster, replay: try ReplayGuard(path: ":memory:"))
        XCTAssertEqual(laptopGate.open(toLaptop.bytes, now: now + 30_000),
                       .accepted(OpenedEnvelope(sender: phone.device, account: phone.userIDHash, frame: frame,
                                                frameID: try XCTUnwrap(frameID(toLaptop, laptop)),
                                                timestamp: now + 30_000)))
        let toPhone = try EnvelopeSealer(keys: laptop, roster: laptopRoster).seal(frame, to: phone.device, now: now + 31_000)
        XCTAssertEqual(toPhone.subject, phone.inbox)
        let phoneGate = EnvelopeGate(keys: phone, roster: phoneRoster, replay: try ReplayGuard(path: ":memory:"))
        guard case .accepted(let back) = phoneGate.open(toPhone.bytes, now: now + 31_000) else { return XCTFail("the phone opens it") }
        XCTAssertEqual(back.sender, laptop.device)
    }

    /// The frame id inside `envelope`, opened with `keys`.
    private func frameID(_ envelope: SealedEnvelope, _ keys: EnvelopeKeys) -> [UInt8]? {
        guard let inside = Sodium.open(envelope.bytes[2...], publicKey: keys.deviceKeys.envelopePublicKey,
                                       secretKey: keys.deviceKeys.envelopeSecretKey) else { return nil }
        return EnvelopeFormat.parseInside(inside)?.frameID
    }

    func testAJoinedDeviceAdmitsTheNextOne() async throws {
        let world = try JoinWorld()
        let responder = try world.responder(events: Recorder())
        let phone = try world.requester(world.credential(), events: Recorder())
        await phone.start()
        await pump(world, responder, phone)
        try await responder.approve(await firstPending(responder))
        await pump(world, responder, phone)
        let joined = try await phone.outcome()

        let phoneResponder = try JoinResponder(directory: joined.directory, name: "phone",
                                               replay: ReplayGuard(path: world.path("phone-seen.sqlite"),
                                                                   window: SignInGate.replayWindow),
                                               carrier: world.relay, clock: world.clock, entropy: .seeded(1), onEvent: { _ in })
        let tablet = try world.requester(world.credential(validFor: 601), name: "tablet", directory: "tablet-account", seed: 6,
                                         events: Recorder())
        await tablet.start()
        await pump(world, phoneResponder, tablet)
        try await phoneResponder.approve(await firstPending(phoneResponder))
        await pump(world, phoneResponder, tablet)
        let second = try await tablet.outcome()
        XCTAssertEqual(try second.directory.deviceNames(), ["desktop", "laptop", "phone", "tablet"])
        let keys = try second.directory.envelopeKeys(name: "tablet")
        XCTAssertEqual(try second.directory.roster(for: keys).devices.count, 3)
    }

    func testRejectLeavesTheNewDeviceOutsideWithNothingWrittenOnEitherSide() async throws {
        let world = try JoinWorld()
        let siblingEvents = Recorder<JoinResponderEvent>()
        let deviceEvents = Recorder<JoinRequesterEvent>()
        let responder = try world.responder(events: siblingEvents)
        let requester = try world.requester(world.credential(), events: deviceEvents)
        await requester.start()
        await pump(world, responder, requester)
        let id = try await firstPending(responder)
        try await responder.reject(id)
        await pump(world, responder, requester)
        let state = await requester.state
        XCTAssertEqual(state, .rejected)
        do {
            _ = try await requester.outcome()
            XCTFail("a rejected device does not join")
        } catch {
            XCTAssertEqual((error as? JoinError)?.code, .joinRejected)
        }
        XCTAssertEqual(deviceEvents.items.last, .rejected)
        XCTAssertEqual(siblingEvents.items.last, .rejected(id: id))
        try assertNothingWritten(world)
        do {
            try await responder.approve(id)
            XCTFail("a rejected request cannot be approved")
        } catch {
            XCTAssertEqual((error as? JoinError)?.code, .approvalNotPending)
        }
        try assertNothingWritten(world)
        let quiet = await world.relay.isEmpty
        XCTAssertTrue(quiet, "nothing more was sent")
    }

    func testUnansweredRequestsResendEveryFiveSecondsSevenTimesThenTimeOutWithNothingWritten() async throws {
        let world = try JoinWorld()
        let events = Recorder<JoinRequesterEvent>()
        let requester = try world.requester(world.credential(), events: events)
        let before = await requester.nextDeadline
        XCTAssertNil(before, "nothing is scheduled before start")
        await requester.start()
        var sentAt: [Int64] = []
        var requestIDs = Set<[UInt8]>()
        var timestamps: [Int64] = []
        while let deadline = await requester.nextDeadline {
            for message in await world.relay.take(requester.discoverySubject) {
                sentAt.append(world.clock.millisecondsSince1970 - now)
                let request = try opened(world, message)
                requestIDs.insert(request.requestID)
                timestamps.append(request.timestamp - now)
                XCTAssertEqual(request.deadline, now + 180_000)
                XCTAssertEqual(request.replySubject, requester.replySubject)
            }
            world.clock.advance(to: deadline)
            await requester.tick()
        }
        XCTAssertEqual(sentAt, [0, 5_000, 10_000, 15_000, 20_000, 25_000, 30_000])
        XCTAssertEqual(timestamps, sentAt, "each send is stamped afresh")
        XCTAssertEqual(requestIDs.count, 1, "one request id across re-sends")
        XCTAssertEqual(world.clock.millisecondsSince1970, now + 35_000)
        let state = await requester.state
        XCTAssertEqual(state, .timedOut(acknowledged: false))
        XCTAssertEqual(events.items, (1...7).flatMap { attempt -> [JoinRequesterEvent] in
            [.requestSent(attempt: attempt), .waiting(remainingSeconds: 40 - 5 * attempt, acknowledged: false)]
        } + [.timedOut(acknowledged: false)], "each send, then the countdown to the end of the re-sends")
        do {
            _ = try await requester.outcome()
            XCTFail("an unanswered device does not join")
        } catch {
            XCTAssertEqual((error as? JoinError)?.code, .joinTimedOut)
            XCTAssertEqual((error as? JoinError)?.detail, "no sibling answered: with no device of the account online nothing admits this one; "
                           + "nothing was stored")
        }
        try assertNothingWritten(world)
    }

    func testOutcomeDrivesItsOwnTimersToTheHonestTimeout() async throws {
        let world = try JoinWorld()
        let requester = try world.requester(world.credential(), events: Recorder())
        do {
            _ = try await requester.outcome()
            XCTFail("nobody answers")
        } catch {
            XCTAssertEqual((error as? JoinError)?.code, .joinTimedOut)
            XCTAssertTrue("\(error)".contains("nothing admits"), "\(error)")
        }
        XCTAssertEqual(world.clock.millisecondsSince1970, now + 35_000)
        let sent = await world.relay.take(requester.discoverySubject)
        XCTAssertEqual(sent.count, 7)
        try assertNothingWritten(world)
    }

    func testOutcomeReturnsTheGrantWhenTheSiblingApprovesAtOnce() async throws {
        let world = try JoinWorld()
        let deviceEvents = Recorder<JoinRequesterEvent>()
        let relay = AutoApprovingRelay()
        let responder = try world.responder(events: Recorder(), carrier: relay)
        let requester = try JoinRequester(credential: world.credential(), directory: AccountDirectory(path: world.path("phone-account")),
                                          name: "phone", carrier: relay, clock: world.clock, entropy: .seeded(5),
                                          onEvent: { deviceEvents.append($0) })
        await relay.attach(responder: responder, requester: requester)
        let joined = try await requester.outcome()
        XCTAssertEqual(world.clock.millisecondsSince1970, now, "no time passed")
        XCTAssertEqual(try joined.directory.deviceNames(), ["desktop", "laptop", "phone"])
        let family = try XCTUnwrap(DeviceFamily("Linux laptop"))
        XCTAssertEqual(deviceEvents.items.filter(\.isOutcomeOrStep), [.requestSent(attempt: 1), .acknowledged(family), .granted(joined)])
    }

    func testAnApprovalNobodyDecidesExpiresAtTheDeadlineOnBothSides() async throws {
        let world = try JoinWorld()
        let siblingEvents = Recorder<JoinResponderEvent>()
        let responder = try world.responder(events: siblingEvents)
        let requester = try world.requester(world.credential(), events: Recorder())
        await requester.start()
        await pump(world, responder, requester)
        let id = try await firstPending(responder)
        let next = await requester.nextDeadline
        XCTAssertEqual(next, now + 5_000, "acknowledged: no more re-sends, only the countdown and the deadline")
        let remaining = await requester.remainingMillis(at: now)
        XCTAssertEqual(remaining, 180_000, "the decision wait, not the re-sends'")
        world.clock.advance(to: now + 179_999)
        await requester.tick()
        let stillPending = await responder.pendingApprovals()
        XCTAssertEqual(stillPending.map(\.id), [id])
        world.clock.advance(to: now + 180_000)
        await requester.tick()
        let state = await requester.state
        XCTAssertEqual(state, .timedOut(acknowledged: true))
        await responder.tick()
        XCTAssertEqual(siblingEvents.items.last, .approvalExpired(id: id))
        let expired = await responder.pendingApprovals()
        XCTAssertEqual(expired, [])
        do {
            try await responder.approve(id)
            XCTFail("an expired approval cannot be approved")
        } catch {
            XCTAssertEqual((error as? JoinError)?.code, .approvalNotPending)
        }
        do {
            _ = try await requester.outcome()
            XCTFail("an undecided device does not join")
        } catch {
            XCTAssertEqual((error as? JoinError)?.code, .joinTimedOut)
            XCTAssertEqual((error as? JoinError)?.detail, "a sibling answered and asked its user, but nobody decided before the wait ended; "
                           + "nothing was stored")
        }
        try assertNothingWritten(world)
        let sent = await world.relay.take(requester.discoverySubject)
        XCTAssertEqual(sent, [], "no re-send after the acknowledgement")
    }

    func testAReSendTheSiblingAlreadySawRaisesNoSecondPromptAndAnOfflineSiblingGetsALaterOne() async throws {
        let world = try JoinWorld()
        let siblingEvents = Recorder<JoinResponderEvent>()
        let responder = try world.responder(events: siblingEvents)
        let requester = try world.requester(world.credential(), events: Recorder())
        await requester.start()
        _ = await world.relay.take(requester.discoverySubject)
        world.clock.advance(by: 5_000)
        await requester.tick()
        let second = await world.relay.take(requester.discoverySubject)
        XCTAssertEqual(second.count, 1, "the sibling was offline for the first send; it hears the second")
        await responder.deliver(second[0])
        _ = await world.relay.take(requester.replySubject)
        world.clock.advance(by: 5_000)
        await requester.tick()
        let third = await pump(world, responder, requester)
        XCTAssertEqual(third, 1, "the acknowledgement was lost: a third send")
        let prompts = siblingEvents.items.filter { if case .approvalRequested = $0 { true } else { false } }
        XCTAssertEqual(prompts.count, 1, "one prompt for one request")
        XCTAssertEqual(siblingEvents.items.last, .requestDropped(reason: .replayed, bytes: second[0].count))
        let pending = await responder.pendingApprovals()
        XCTAssertEqual(pending.count, 1)
        try await responder.approve(try XCTUnwrap(pending.first).id)
        await pump(world, responder, requester)
        _ = try await requester.outcome()
    }

    func testRejectAGrantThatIsTamperedOrSealedToAnotherRequest() async throws {
        let world = try JoinWorld()
        let responder = try world.responder(events: Recorder())
        let phoneEvents = Recorder<JoinRequesterEvent>()
        let tabletEvents = Recorder<JoinRequesterEvent>()
        let phone = try world.requester(world.credential(), events: phoneEvents)
        let tablet = try world.requester(world.credential(), name: "tablet", directory: "tablet-account", seed: 6, events: tabletEvents)
        await phone.start()
        await tablet.start()
        await pump(world, responder, phone)
        _ = await world.relay.take(tablet.replySubject)
        let phoneID = try await firstPending(responder, named: "phone")
        try await responder.approve(phoneID)
        let grant = try await first(world, phone.replySubject)

        await tablet.deliver(grant)
        XCTAssertEqual(tabletEvents.items.last, .replyDropped(reason: .unopenable, bytes: grant.count))
        let tabletState = await tablet.state
        XCTAssertEqual(tabletState, .requesting(sends: 1))
        XCTAssertEqual(world.files(under: world.path("tablet-account")), [], "nothing stored from another request's grant")
        for index in [0, 10, 30, grant.count / 2, grant.count - 1] {
            var tampered = grant
            tampered[index] ^= 0x20
            await phone.deliver(tampered)
            let expected: JoinReplyDropReason = index == 0 ? .undecodable : .unopenable
            XCTAssertEqual(phoneEvents.items.last, .replyDropped(reason: expected, bytes: grant.count), "byte \(index)")
        }
        let phoneState = await phone.state
        XCTAssertEqual(phoneState, .acknowledged(try XCTUnwrap(DeviceFamily("Linux laptop"))))
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.path("phone-account")), "nothing stored from a tampered grant")
        await phone.deliver(grant)
        _ = try await phone.outcome()
        await phone.deliver(grant)
        XCTAssertEqual(phoneEvents.items.last, .replyDropped(reason: .afterOutcome, bytes: grant.count))
    }

    func testRejectRepliesThatAreNotThisRequestsGrant() async throws {
        let world = try JoinWorld()
        let events = Recorder<JoinRequesterEvent>()
        let requester = try world.requester(world.credential(), events: events)
        await requester.start()
        let request = try opened(world, try await first(world, requester.discoverySubject))
        let discovery = try world.discovery()
        let nonce = [UInt8](repeating: 6, count: JoinCrypto.nonceBytes)
        let account = try world.sibling.account()
        let signInKey = try world.sibling.signInKey()
        let siblings = try world.sibling.certificatesByName()
        let right = try account.issue(device: request.device, envelopeKey: request.envelopeKey, expiresAt: JoinWorld.expiry)

        func deliver(_ reply: JoinReply, id: [UInt8]? = nil, from keys: DiscoveryKeys? = nil) async throws {
            let sealed = try XCTUnwrap(reply.sealed(requestID: id ?? request.requestID, to: request.ephemeralKey, from: keys ?? discovery,
                                                    nonce: nonce))
            await requester.deliver(sealed)
        }
        func lastDrop() -> JoinReplyDropReason? {
            guard case .replyDropped(let reason, _) = events.items.last else { return nil }
            return reason
        }

        let stranger = try DiscoveryKeys(accountSeed: [UInt8](repeating: 99, count: 32))
        try await deliver(.granted(SignInGrant(account: account, signInKey: signInKey, certificate: right, siblings: siblings)),
                          from: stranger)
        XCTAssertEqual(lastDrop(), .unopenable, "boxed by someone without the account's discovery key")
        try await deliver(.rejected, id: [UInt8](repeating: 0, count: 16))
        XCTAssertEqual(lastDrop(), .otherRequest)
        let malformed = try XCTUnwrap(JoinCrypto.box([9] + request.requestID, nonce: nonce, to: request.ephemeralKey,
                                                     from: discovery.secretKey))
        await requester.deliver([JoinReply.version] + nonce + malformed)
        XCTAssertEqual(lastDrop(), .malformed)
        let otherDevice = try account.issue(device: DeviceID(publicKey: [UInt8](repeating: 1, count: 32)),
                                            envelopeKey: request.envelopeKey, expiresAt: JoinWorld.expiry)
        let otherAccount = try AccountMaterial(seed: [UInt8](repeating: 3, count: 32), issuerSeed: [UInt8](repeating: 4, count: 32))
        let otherAccountCertificate = try otherAccount.issue(device: request.device, envelopeKey: request.envelopeKey,
                                                             expiresAt: JoinWorld.expiry)
        let expired = try account.issue(device: request.device, envelopeKey: request.envelopeKey, expiresAt: now / 1_000)
        let otherSignIn = try SignInKey(verifierSeed: [UInt8](repeating: 5, count: 32), identity: signInKey.identity)
        var clashing = siblings
        clashing["phone"] = siblings["desktop"]
        let invalid = [
            try SignInGrant(account: account, signInKey: signInKey, certificate: otherDevice, siblings: siblings),
            try SignInGrant(account: otherAccount, signInKey: signInKey, certificate: otherAccountCertificate,
                            siblings: ["x": otherAccountCertificate]),
            try SignInGrant(account: account, signInKey: signInKey, certificate: expired, siblings: siblings),
            try SignInGrant(account: account, signInKey: otherSignIn, certificate: right, siblings: siblings),
            try SignInGrant(account: account, signInKey: signInKey, certificate: right, siblings: clashing),
            try SignInGrant(account: account, signInKey: signInKey, certificate: right,
                            siblings: ["stray": otherAccountCertificate]),
        ]
        for (index, grant) in invalid.enumerated() {
            try await deliver(.granted(grant))
            XCTAssertEqual(lastDrop(), .invalidGrant, "grant \(index)")
        }
        let dropCounts = await requester.dropCounts
        XCTAssertEqual(dropCounts, [.unopenable: 1, .otherRequest: 1, .malformed: 1, .invalidGrant: 6])
        let state = await requester.state
        XCTAssertEqual(state, .requesting(sends: 1))
        try assertNothingWritten(world)
        try await deliver(.granted(SignInGrant(account: account, signInKey: signInKey, certificate: right, siblings: siblings)))
        guard case .granted = await requester.state else { return XCTFail("the genuine grant is taken") }
    }

    func testAGrantThatArrivesAfterTheWaitEndedIsDroppedAndNothingIsStored() async throws {
        let world = try JoinWorld()
        let responder = try world.responder(events: Recorder())
        let events = Recorder<JoinRequesterEvent>()
        let requester = try world.requester(world.credential(), events: events)
        await requester.start()
        await pump(world, responder, requester)
        world.clock.advance(to: now + 179_000)
        try await responder.approve(await firstPending(responder))
        world.clock.advance(to: now + 180_000)
        await pump(world, responder, requester)
        let state = await requester.state
        XCTAssertEqual(state, .timedOut(acknowledged: true))
        guard case .replyDropped(.afterOutcome, _) = events.items.last else { return XCTFail("\(events.items)") }
        XCTAssertEqual(events.items.filter { if case .timedOut = $0 { true } else { false } }, [.timedOut(acknowledged: true)])
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.path("phone-account")))
    }

    func testRejectRequestsBeyondTheApprovalsASiblingKeeps() async throws {
        let world = try JoinWorld()
        let siblingEvents = Recorder<JoinResponderEvent>()
        let responder = try world.responder(events: siblingEvents, maxPending: 1)
        let phone = try world.requester(world.credential(), events: Recorder())
        let tablet = try world.requester(world.credential(), name: "tablet", directory: "tablet-account", seed: 6, events: Recorder())
        await phone.start()
        await tablet.start()
        await pump(world, responder, phone)
        let message = await world.relay.take(tablet.replySubject)
        XCTAssertEqual(message.count, 1, "a refusal, no acknowledgement, for a request beyond the bound")
        for reply in message { await tablet.deliver(reply) }
        let refused = await tablet.state
        XCTAssertEqual(refused, .refused(.busy))
        guard case .requestDropped(.approvalsFull, _) = siblingEvents.items.last else { return XCTFail("\(siblingEvents.items)") }
        let counts = await responder.dropCounts
        XCTAssertEqual(counts, [.approvalsFull: 1])
        let pending = await responder.pendingApprovals()
        XCTAssertEqual(pending.map(\.deviceName), ["phone"])
    }

    func testRejectAnApprovalUnderANameInUseAndSendNothing() async throws {
        let world = try JoinWorld()
        let responder = try world.responder(events: Recorder())
        let requester = try world.requester(world.credential(), name: "desktop", events: Recorder())
        await requester.start()
        await pump(world, responder, requester)
        let id = try await firstPending(responder)
        do {
            try await responder.approve(id)
            XCTFail("a name in use is not given twice")
        } catch {
            XCTAssertEqual((error as? SyncKernelError)?.code, .keyFileUnavailable)
        }
        let sent = await world.relay.take(requester.replySubject)
        XCTAssertEqual(sent, [])
        try assertNothingWritten(world)
        try await responder.reject(id)
        await pump(world, responder, requester)
        let state = await requester.state
        XCTAssertEqual(state, .rejected)

        let desktop = try world.sibling.certificate(name: "desktop")
        let sameKeys = try SignInRequest(requestID: [UInt8](repeating: 8, count: 16), replyToken: [UInt8](repeating: 9, count: 16),
                                         ephemeralKey: [UInt8](repeating: 4, count: 32), device: desktop.device,
                                         envelopeKey: desktop.envelopeKey, timestamp: now, deadline: now + 60_000, deviceName: "spare",
                                         certificate: world.credential().certificate)
        await responder.deliver(try XCTUnwrap(sameKeys.sealed(to: world.discovery().publicKey, ephemeralSeed: [UInt8](repeating: 2, count: 32))))
        let spare = try await firstPending(responder)
        do {
            try await responder.approve(spare)
            XCTFail("a member's keys are not certified again")
        } catch {
            XCTAssertEqual((error as? SyncKernelError)?.code, .keyFileUnavailable)
        }
        try assertNothingWritten(world)
    }

    func testRejectAJoinIntoADirectoryInUseAnExpiredCredentialABadNameOrPolicy() throws {
        let world = try JoinWorld()
        let credential = try world.credential()
        try FileManager.default.createDirectory(atPath: world.path("busy"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: world.path("busy/notes"), contents: Data([1]))
        try FileManager.default.createDirectory(atPath: world.path("empty"), withIntermediateDirectories: true)
        var tight = JoinPolicy()
        tight.decisionWaitMillis = 30_000
        var long = JoinPolicy()
        long.decisionWaitMillis = 600_001
        var none = JoinPolicy()
        none.maxSends = 0
        let refusals: [(String, SyncKernelError.Code, () throws -> Void)] = [
            ("busy", .keyFileUnavailable, { _ = try world.requester(credential, directory: "busy", events: Recorder()) }),
            ("a file", .keyFileUnavailable, { _ = try world.requester(credential, directory: "busy/notes", events: Recorder()) }),
            ("name", .keyFileUnavailable, { _ = try world.requester(credential, name: "../x", events: Recorder()) }),
            ("expired", .invalidCertificate, { _ = try world.requester(world.credential(validFor: 0), events: Recorder()) }),
            ("tight", .limitExceeded, { _ = try world.requester(credential, policy: tight, events: Recorder()) }),
            ("long", .limitExceeded, { _ = try world.requester(credential, policy: long, events: Recorder()) }),
            ("none", .limitExceeded, { _ = try world.requester(credential, policy: none, events: Recorder()) }),
        ]
        for (name, code, make) in refusals {
            XCTAssertThrowsError(try make(), name) { XCTAssertEqual(($0 as? SyncKernelError)?.code, code, name) }
        }
        XCTAssertNoThrow(try world.requester(credential, directory: "empty", events: Recorder()), "an empty folder is free")
    }
}

/// A relay that hands every request straight to a responder, approves whatever it then asks
/// about, and hands every reply straight back to the requester: a sibling whose user approves at
/// once, with no time passing.
actor AutoApprovingRelay: JoinCarrier {
    private var responder: JoinResponder?
    private var requester: JoinRequester?

    func attach(responder: JoinResponder, requester: JoinRequester) {
        self.responder = responder
        self.requester = requester
    }

    func publish(_ bytes: [UInt8], to subject: JoinSubject) async {
        guard let responder, let requester else { return }
        if subject == responder.discoverySubject {
            await responder.deliver(bytes)
            for approval in await responder.pendingApprovals() { _ = try? await responder.approve(approval.id) }
        } else if subject == requester.replySubject {
            await requester.deliver(bytes)
        }
    }
}
