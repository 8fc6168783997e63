import Foundation
@testable import SyncEnvelope
@testable import SyncJoin
import SyncKernel
import TestServerSupport
import XCTest

/// A sign-in credential admits one device: the approver records it spent, the record reaches a
/// sibling that was offline then, a revoked unused credential is refused, a crowd of requests on
/// one credential leaves room for another credential's prompt, and a prompt is withdrawn on
/// every sibling once one decides. In process, on the world's settable clock and relay.
final class CredentialLedgerTests: XCTestCase {
    /// The world's laptop and a desktop with its own copy of the account directory, each with
    /// the recorder of its events.
    private func siblings(_ world: JoinWorld) throws
        -> (JoinResponder, Recorder<JoinResponderEvent>, JoinResponder, Recorder<JoinResponderEvent>) {
        let laptopEvents = Recorder<JoinResponderEvent>()
        let desktopEvents = Recorder<JoinResponderEvent>()
        return (try world.responder(events: laptopEvents), laptopEvents, try world.otherSibling("desktop", events: desktopEvents),
                desktopEvents)
    }

    func testASpentCredentialIsRefusedOnASecondUseAlsoByASiblingThatMissedTheApproval() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let (laptop, _, desktop, desktopEvents) = try siblings(world)
        let credential = try world.credential()
        let phone = try await steps.ask(credential, name: "phone", seed: 5, to: [laptop])
        try await laptop.approve(try await steps.prompt(laptop, for: "phone"))
        await steps.replies(phone)
        guard case .granted = await phone.state else { return XCTFail("the first use admits the phone") }
        try await steps.discovery(to: [])
        let id = try XCTUnwrap(credential.id)
        XCTAssertEqual(try world.sibling.signInLedger().mark(of: id), .spent)

        await desktop.announceLedger()
        try await steps.discovery(to: [laptop, desktop])
        XCTAssertFalse(desktopEvents.items.contains(.ledgerLearned(entries: 1)), "the laptop answers no faster than its interval")
        world.clock.advance(by: laptop.ledgerAnswerIntervalMillis)
        await laptop.tick()
        try await steps.discovery(to: [desktop])
        XCTAssertEqual(desktopEvents.items.last, .ledgerLearned(entries: 1))

        let tablet = try await steps.ask(credential, name: "tablet", seed: 6, to: [desktop])
        let tabletState = await tablet.state
        XCTAssertEqual(tabletState, .refused(.spent))
        let error = await steps.failure(tablet)
        XCTAssertEqual(error?.code, JoinError.Code.joinRefused.rawValue)
        XCTAssertEqual(error?.detail, SignInRefusal.spent.explanation)
        XCTAssertEqual(desktopEvents.items.last, .requestDropped(reason: .credentialSpent, bytes: SignInRequest.sealedBytes))
        let desktopPending = await desktop.pendingApprovals()
        XCTAssertEqual(desktopPending, [])
        let watch = try await steps.ask(credential, name: "watch", seed: 7, to: [laptop])
        let watchState = await watch.state
        XCTAssertEqual(watchState, .refused(.spent), "the approver refuses it too")
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.path("tablet-account")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.path("watch-account")))
    }

    func testARevokedUnusedCredentialIsRefusedHereAndByTheSiblingsItTells() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let (laptop, laptopEvents, desktop, desktopEvents) = try siblings(world)
        let credential = try world.credential()
        let waiting = try world.credential(validFor: 601)
        let early = try await steps.ask(waiting, name: "early", seed: 9, to: [laptop])
        try world.sibling.revokeSignInCredential(credential, now: world.clock.millisecondsSince1970)
        try world.sibling.revokeSignInCredential(waiting, now: world.clock.millisecondsSince1970)

        await laptop.tick()
        let earlyID = try XCTUnwrap(laptopEvents.items.compactMap { event -> ApprovalID? in
            if case .approvalRequested(let approval) = event { approval.id } else { nil }
        }.first)
        XCTAssertTrue(laptopEvents.items.contains(.approvalWithdrawn(id: earlyID, cause: .credentialRevoked)))
        await steps.replies(early)
        let earlyState = await early.state
        XCTAssertEqual(earlyState, .refused(.revoked), "a waiting request of a credential revoked meanwhile is refused")
        try await steps.discovery(to: [desktop])
        XCTAssertEqual(desktopEvents.items.last, .ledgerLearned(entries: 2), "the laptop told what the command line wrote")

        let phone = try await steps.ask(credential, name: "phone", seed: 5, to: [laptop])
        let phoneState = await phone.state
        XCTAssertEqual(phoneState, .refused(.revoked))
        XCTAssertEqual(laptopEvents.items.last, .requestDropped(reason: .credentialRevoked, bytes: SignInRequest.sealedBytes))
        let error = await steps.failure(phone)
        XCTAssertEqual(error?.code, JoinError.Code.joinRefused.rawValue)
        XCTAssertEqual(error?.detail, SignInRefusal.revoked.explanation)

        let tablet = try await steps.ask(credential, name: "tablet", seed: 6, to: [desktop])
        let tabletState = await tablet.state
        XCTAssertEqual(tabletState, .refused(.revoked))
    }

    func testRejectRevokingACredentialOfAnotherAccountAnExpiredOneOrOneThatWasUsed() async throws {
        let world = try JoinWorld()
        let other = try JoinWorld(seed: 12)
        let now = world.clock.millisecondsSince1970
        let before = try world.sibling.signInLedger()
        XCTAssertThrowsError(try world.sibling.revokeSignInCredential(other.credential(), now: now)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .invalidCertificate)
        }
        XCTAssertThrowsError(try world.sibling.revokeSignInCredential(world.credential(validFor: 60), now: now + 60_000)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .invalidCertificate)
        }
        let used = try world.credential(validFor: 700)
        var ledger = before
        ledger.record(SignInLedger.Entry(credential: try XCTUnwrap(used.id), expiresAt: used.certificate.expiresAt, mark: .spent))
        try world.sibling.writeSignInLedger(ledger)
        XCTAssertThrowsError(try world.sibling.revokeSignInCredential(used, now: now)) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .invalidCertificate)
        }
        XCTAssertEqual(try world.sibling.signInLedger(), ledger, "a refused revocation writes nothing")
    }

    func testACrowdOnOneLeakedCredentialLeavesRoomForAnotherCredentialsPrompt() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let events = Recorder<JoinResponderEvent>()
        let laptop = try world.responder(events: events)
        let leaked = try world.credential()
        var states: [JoinState] = []
        for index in 0..<12 {
            let crowd = try await steps.ask(leaked, name: "crowd\(index)", seed: 100 + UInt64(index), to: [laptop])
            states.append(await crowd.state)
        }
        let family = try XCTUnwrap(DeviceFamily("Linux laptop"))
        XCTAssertEqual(states, Array(repeating: .acknowledged(family), count: 2) + Array(repeating: .refused(.busy), count: 10))
        let counts = await laptop.dropCounts
        XCTAssertEqual(counts, [.credentialBusy: 10])
        let owner = try await steps.ask(world.credential(validFor: 601), name: "phone", seed: 5, to: [laptop])
        let ownerState = await owner.state
        XCTAssertEqual(ownerState, .acknowledged(family), "the owner's credential still raises a prompt")
        let pending = await laptop.pendingApprovals()
        XCTAssertEqual(pending.map(\.deviceName).sorted(), ["crowd0", "crowd1", "phone"])
        XCTAssertEqual(Set(pending.map(\.credential)).count, 2)

        let other = try world.credential(validFor: 602)
        let desktop = try world.otherSibling("desktop", events: Recorder(), maxPendingPerCredential: 1)
        let first = try await steps.ask(other, name: "first", seed: 50, to: [desktop])
        let firstState = await first.state
        XCTAssertEqual(firstState, .acknowledged(try XCTUnwrap(DeviceFamily("Linux desktop"))))
        let again = try await steps.ask(other, name: "again", seed: 51, to: [laptop, desktop])
        let againState = await again.state
        XCTAssertEqual(againState, .acknowledged(family), "a busy refusal after another sibling's ack does not end the wait")
    }

    func testAPromptIsWithdrawnOnEverySiblingOnceOneDecides() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let (laptop, laptopEvents, desktop, desktopEvents) = try siblings(world)
        let credential = try world.credential()
        let phone = try await steps.ask(credential, name: "phone", seed: 5, to: [laptop, desktop])
        let rival = try await steps.ask(credential, name: "rival", seed: 8, to: [laptop])
        let desktopPhone = try await steps.prompt(desktop, for: "phone")
        let laptopRival = try await steps.prompt(laptop, for: "rival")

        try await laptop.approve(try await steps.prompt(laptop, for: "phone"))
        XCTAssertEqual(laptopEvents.items.last, .approvalWithdrawn(id: laptopRival, cause: .credentialSpent))
        await steps.replies(rival)
        let rivalState = await rival.state
        XCTAssertEqual(rivalState, .refused(.spent), "another request with the spent credential is refused")
        try await steps.discovery(to: [desktop])
        XCTAssertTrue(desktopEvents.items.contains(.approvalWithdrawn(id: desktopPhone, cause: .approvedElsewhere(by: "laptop"))))
        let left = await desktop.pendingApprovals()
        XCTAssertEqual(left, [])
        do {
            try await desktop.approve(desktopPhone)
            XCTFail("a withdrawn prompt cannot be approved")
        } catch {
            XCTAssertEqual((error as? JoinError)?.code, .approvalNotPending)
        }
        await steps.replies(phone)
        guard case .granted = await phone.state else { return XCTFail("the phone joined") }

        let tablet = try await steps.ask(world.credential(validFor: 601), name: "tablet", seed: 6, to: [laptop, desktop])
        let laptopTablet = try await steps.prompt(laptop, for: "tablet")
        try await desktop.reject(try await steps.prompt(desktop, for: "tablet"))
        try await steps.discovery(to: [laptop])
        XCTAssertEqual(laptopEvents.items.last, .approvalWithdrawn(id: laptopTablet, cause: .rejectedElsewhere(by: "desktop")))
        await steps.replies(tablet)
        let tabletState = await tablet.state
        XCTAssertEqual(tabletState, .rejected)
    }
}
