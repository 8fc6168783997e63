import SyncJoin
import SyncKernel
import SyncRelay

extension SyncDeviceEvent {
    /// The device event that tells what a relay event tells.
    package init(_ event: RelayEvent) {
        switch event {
        case .connected: self = .relayConnected
        case .disconnected: self = .relayDisconnected
        case .reconnected: self = .relayReconnected
        case .closed: self = .relayClosed
        }
    }

    /// The device event that tells what this device's join responder reports.
    package init(_ event: JoinResponderEvent) {
        switch event {
        case .requestDropped(let reason, let bytes): self = .signInDropped(reason: reason, bytes: bytes)
        case .approvalRequested(let approval): self = .approvalRequested(approval)
        case .approved(let id, let device, let name): self = .approved(id: id, device: device, name: name)
        case .rejected(let id): self = .approvalRejected(id: id)
        case .approvalExpired(let id): self = .approvalExpired(id: id)
        case .approvalWithdrawn(let id, let cause): self = .approvalWithdrawn(id: id, cause: cause)
        case .ledgerLearned(let entries): self = .signInLedgerLearned(entries: entries)
        }
    }

    /// The device event that tells what this device's join requester reports.
    package init(_ event: JoinRequesterEvent) {
        switch event {
        case .requestSent(let attempt): self = .joinRequestSent(attempt: attempt)
        case .acknowledged(let family): self = .joinAcknowledged(family)
        case .replyDropped(let reason, let bytes): self = .joinReplyDropped(reason: reason, bytes: bytes)
        case .granted(let joined): self = .joinGranted(joined)
        case .waiting(let remaining, let acknowledged): self = .joinWaiting(remainingSeconds: remaining, acknowledged: acknowledged)
        case .rejected: self = .joinRejected
        case .refused(let refusal): self = .joinRefused(refusal)
        case .timedOut(let acknowledged): self = .joinTimedOut(acknowledged: acknowledged)
        case .storeFailed(let error): self = .joinStoreFailed(ErrorReport(error))
        }
    }
}
