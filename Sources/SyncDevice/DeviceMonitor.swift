import Synchronization
import SyncEnvelope
import SyncKernel

/// The part of a `SyncDevice` every task and callback reports to: it hands events to their
/// subscribers, remembers when each sibling last finished a round and was last heard from, and
/// wakes the status task when something changed.
///
/// Invariants: events reach every subscription in the order `emit` was called; a sibling's
/// `lastRound` and `lastSeen` only move forward in time as the wall clock gives it; every `emit`,
/// `heard` and `changed` after `attach` wakes the status task (wakes coalesce: at most one is
/// pending), none after `detach`; every commit that may have changed rows (`committed()` after a
/// local write, an event of a merge, a delete resolving a conflict, a quarantine, a rollback or a
/// snapshot absorbed) wakes every subscription of `commits` (coalesced the same way).
final class DeviceMonitor: Sendable {
    private struct Times {
        var lastRound: Int64?
        var lastSeen: Int64?
    }

    private struct State {
        var times: [DeviceID: Times] = [:]
        var wake: AsyncStream<Void>.Continuation?
    }

    /// The device's events, to any number of subscribers.
    let events = Broadcast<SyncDeviceEvent>(bufferLimit: 4_096)
    /// The device's status after each change, to any number of subscribers (the newest only).
    let statuses = Broadcast<DeviceStatus>(bufferLimit: 1)
    /// A wake after each commit that may have changed rows, to the change feeds and observations.
    let commits = Broadcast<Void>(bufferLimit: 1)
    private let clock: any WallClock
    private let state = Mutex(State())

    /// A monitor reading times from `clock`.
    init(clock: any WallClock) {
        self.clock = clock
    }

    /// Reports `event`; a round that reached matching roots stamps its sibling's `lastRound`.
    func emit(_ event: SyncDeviceEvent) {
        if case .roundCompleted(let peer) = event {
            let now = clock.millisecondsSince1970
            state.withLock { $0.times[peer, default: Times()].lastRound = now }
        }
        events.yield(event)
        switch event {
        case .applied, .conflictResolved, .rowsQuarantined, .storeRolledBack,
             .snapshotAbsorbed:
            committed()
        default:
            break
        }
        changed()
    }

    /// Wakes the subscriptions of `commits`: rows may have changed.
    func committed() {
        commits.yield(())
    }

    /// An envelope from `sibling` was accepted.
    func heard(from sibling: DeviceID) {
        let now = clock.millisecondsSince1970
        state.withLock { $0.times[sibling, default: Times()].lastSeen = now }
        changed()
    }

    /// Something the status shows may have changed: wakes the status task.
    func changed() {
        _ = state.withLock { $0.wake }?.yield(())
    }

    /// Takes the times a previous run recorded (`SiblingLog`), keeping any newer ones.
    func restore(_ siblings: [SiblingStatus]) {
        state.withLock { state in
            for sibling in siblings {
                var times = state.times[sibling.device] ?? Times()
                times.lastRound = [times.lastRound, sibling.lastRound].compactMap { $0 }.max()
                times.lastSeen = [times.lastSeen, sibling.lastSeen].compactMap { $0 }.max()
                state.times[sibling.device] = times
            }
        }
    }

    /// Each sibling's status: its replica state with the recorded times.
    func siblings(_ states: [SiblingState]) -> [SiblingStatus] {
        let times = state.withLock { $0.times }
        return states.map { state in
            SiblingStatus(device: state.device, lastRound: times[state.device]?.lastRound, lastSeen: times[state.device]?.lastSeen,
                          inSync: state.inSync)
        }
    }

    /// A wake stream for a new status task (ending any earlier one's).
    func attach() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let previous = state.withLock { state in
            defer { state.wake = continuation }
            return state.wake
        }
        previous?.finish()
        continuation.yield(())
        return stream
    }

    /// Ends the status task's wake stream (after its pending wake, if any).
    func detach() {
        let wake = state.withLock { state in
            defer { state.wake = nil }
            return state.wake
        }
        wake?.finish()
    }
}
