@testable import SyncJoin
import SyncKernel
import TestServerSupport
import XCTest

/// The steps the ledger and message tests take on a `JoinWorld`: a request delivered to the
/// siblings that are online, the notices among them, the replies, and the error a finished
/// wait ends in.
///
/// Invariant: a sibling not named in a step is offline for it: it never sees that step's
/// messages (they are taken off the relay).
struct JoinSteps {
    let world: JoinWorld

    /// Hands every message waiting on the discovery subject to each of `online`.
    func discovery(to online: [JoinResponder]) async throws {
        let subject = try world.sibling.discoverySubject()
        for message in await world.relay.take(subject) {
            for responder in online { await responder.deliver(message) }
        }
    }

    /// Hands every reply waiting for `requester` to it.
    func replies(_ requester: JoinRequester) async {
        for reply in await world.relay.take(requester.replySubject) { await requester.deliver(reply) }
    }

    /// A device named `name` asking with `credential`, its request seen by `online`, their
    /// answers delivered.
    func ask(_ credential: SignInCredential, name: String, seed: UInt64, to online: [JoinResponder],
             events: Recorder<JoinRequesterEvent> = Recorder()) async throws -> JoinRequester {
        let requester = try world.requester(credential, name: name, directory: "\(name)-account", seed: seed, events: events)
        await requester.start()
        try await discovery(to: online)
        await replies(requester)
        return requester
    }

    /// The id of the prompt `responder` shows for the device named `name`.
    func prompt(_ responder: JoinResponder, for name: String) async throws -> ApprovalID {
        let pending = await responder.pendingApprovals()
        return try XCTUnwrap(pending.first { $0.deviceName == name }?.id, "a prompt for \(name)")
    }

    /// The report of the error the wait of `requester` ends in (nil when it joined).
    func failure(_ requester: JoinRequester) async -> ErrorReport? {
        do {
            _ = try await requester.outcome()
            return nil
        } catch {
            return ErrorReport(error)
        }
    }
}
