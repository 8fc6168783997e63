@testable import SyncJoin

extension JoinRequesterEvent {
    /// Whether the event is a step or an outcome of the protocol (not the countdown), for tests
    /// that check the protocol's order apart from the countdown.
    var isOutcomeOrStep: Bool {
        if case .waiting = self { return false }
        return true
    }
}
