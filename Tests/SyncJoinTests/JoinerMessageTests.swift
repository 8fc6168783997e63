import Foundation
@testable import SyncJoin
import SyncKernel
import TestServerSupport
import XCTest

/// What the joining device's user is told names the real cause, one test per cause: its
/// credential spent, revoked, too many pending requests, a rejection, no sibling online, and a
/// sibling that asked while nobody decided. Each ends with its own code and detail, and nothing
/// written.
final class JoinerMessageTests: XCTestCase {
    /// Checks `requester` ended with `code` and a detail holding `words`, having written nothing.
    private func assertEnds(_ steps: JoinSteps, _ requester: JoinRequester, _ code: JoinError.Code, saying words: String,
                            file: StaticString = #filePath, line: UInt = #line) async {
        let error = await steps.failure(requester)
        XCTAssertEqual(error?.code, code.rawValue, "\(String(describing: error))", file: file, line: line)
        XCTAssertEqual(error?.type, "JoinError", file: file, line: line)
        XCTAssertTrue(error?.detail.contains(words) ?? false, "\(String(describing: error))", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: steps.world.path("\(requester.deviceName)-account")), "nothing written",
                       file: file, line: line)
    }

    func testASpentCredentialIsToldAsSpent() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let credential = try world.credential()
        var ledger = SignInLedger()
        ledger.record(SignInLedger.Entry(credential: try XCTUnwrap(credential.id), expiresAt: credential.certificate.expiresAt, mark: .spent))
        try world.sibling.writeSignInLedger(ledger)
        let phone = try await steps.ask(credential, name: "phone", seed: 5, to: [world.responder(events: Recorder())])
        await assertEnds(steps, phone, .joinRefused, saying: "it admitted a device already (each credential admits one)")
    }

    func testARevokedCredentialIsToldAsRevoked() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let credential = try world.credential()
        try world.sibling.revokeSignInCredential(credential, now: world.clock.millisecondsSince1970)
        let phone = try await steps.ask(credential, name: "phone", seed: 5, to: [world.responder(events: Recorder())])
        await assertEnds(steps, phone, .joinRefused, saying: "the sign-in credential: it was revoked")
    }

    func testTooManyPendingRequestsAreToldAsBusy() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let laptop = try world.responder(events: Recorder(), maxPendingPerCredential: 1)
        let credential = try world.credential()
        _ = try await steps.ask(credential, name: "first", seed: 8, to: [laptop])
        let phone = try await steps.ask(credential, name: "phone", seed: 5, to: [laptop])
        await assertEnds(steps, phone, .joinRefused, saying: "too many requests wait for a decision there already")
    }

    func testARejectionIsToldAsRejected() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let laptop = try world.responder(events: Recorder())
        let phone = try await steps.ask(world.credential(), name: "phone", seed: 5, to: [laptop])
        try await laptop.reject(try await steps.prompt(laptop, for: "phone"))
        await steps.replies(phone)
        await assertEnds(steps, phone, .joinRejected, saying: "a sibling's user rejected this device")
    }

    func testNoSiblingOnlineIsToldAsNobodyAnswered() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let phone = try await steps.ask(world.credential(), name: "phone", seed: 5, to: [])
        await assertEnds(steps, phone, .joinTimedOut, saying: "no sibling answered: with no device of the account online")
        XCTAssertEqual(world.clock.millisecondsSince1970, JoinWorld.now + 35_000, "the re-sends' wait, not the decision wait")
    }

    func testNobodyDecidingIsToldAsNoDecisionAfterTheDecisionWaitCountedDown() async throws {
        let world = try JoinWorld()
        let steps = JoinSteps(world: world)
        let events = Recorder<JoinRequesterEvent>()
        let phone = try await steps.ask(world.credential(), name: "phone", seed: 5, to: [world.responder(events: Recorder())],
                                        events: events)
        await assertEnds(steps, phone, .joinTimedOut, saying: "a sibling answered and asked its user, but nobody decided")
        XCTAssertEqual(world.clock.millisecondsSince1970, JoinWorld.now + 180_000, "the decision wait")
        let countdown = events.items.compactMap { event -> Int? in
            if case .waiting(let remaining, true) = event { remaining } else { nil }
        }
        XCTAssertEqual(countdown, Array(stride(from: 180, to: 0, by: -5)), "every 5 s from 180 s down")
    }
}
