@testable import SyncJoin
import SyncKernel
import XCTest

extension JoinRequesterEvent {
    /// Whether the event is a step or an outcome of the protocol (not the countdown), for tests
    /// that check the protocol's order apart from the countdown.
    var isOutcomeOrStep: Bool {
        if case .waiting = self { return false }
        return true
    }
}

/// The filter the flow tests stand on: it leaves out the countdown and nothing else.
final class JoinRequesterEventStepsSelfTests: XCTestCase {
    func testTheCountdownIsLeftOutAndEveryStepAndOutcomeKept() {
        XCTAssertFalse(JoinRequesterEvent.waiting(remainingSeconds: 30, acknowledged: false).isOutcomeOrStep)
        XCTAssertFalse(JoinRequesterEvent.waiting(remainingSeconds: 0, acknowledged: true).isOutcomeOrStep)
        let kept: [JoinRequesterEvent] = [.requestSent(attempt: 1), .rejected, .timedOut(acknowledged: true),
                                          .timedOut(acknowledged: false), .storeFailed(SyncKernelError(.keyFileUnavailable))]
        XCTAssertTrue(kept.allSatisfy(\.isOutcomeOrStep))
    }
}
