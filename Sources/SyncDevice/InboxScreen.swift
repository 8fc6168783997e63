import NatsRelay
import Synchronization
import SyncEnvelope

/// The gate's stateless stage run where a device's envelopes arrive, on the relay client's
/// thread: every check but the seen set (`EnvelopeOpener.check`), so an envelope's cryptography is
/// paid once and junk never wakes the inbox; what passes is queued, checked, for `DeviceInbox`.
///
/// Invariants: each payload is either queued on `checked` (in arrival order), counted under its
/// drop reason, or, when `checked`'s buffer is full, reported to the connection as overflowed
/// (counted there): exactly one. The device's drop counts are these and the gate's (the seen set's
/// drops), each envelope in exactly one of them. A drop takes one lock and allocates nothing once
/// its reason was seen, and is reported as an event only when `reportsEachDrop`.
final class InboxScreen: Sendable {
    /// The envelopes that passed, checked, for the inbox; ends with `finish()`.
    let checked: AsyncStream<CheckedEnvelope>
    private let continuation: AsyncStream<CheckedEnvelope>.Continuation
    private let opener: EnvelopeOpener
    private let clock: any WallClock
    private let monitor: DeviceMonitor
    private let reportsEachDrop: Bool
    private let counts = Mutex<[EnvelopeDropReason: Int]>([:])

    /// A screen running `opener` at `clock`'s time, holding up to `buffer` checked envelopes the
    /// inbox has not taken yet, reporting each drop to `monitor` when `reportsEachDrop`.
    init(opener: EnvelopeOpener, clock: any WallClock, buffer: Int, monitor: DeviceMonitor, reportsEachDrop: Bool) {
        (checked, continuation) = AsyncStream.makeStream(of: CheckedEnvelope.self, bufferingPolicy: .bufferingOldest(buffer))
        self.opener = opener
        self.clock = clock
        self.monitor = monitor
        self.reportsEachDrop = reportsEachDrop
    }

    /// The screen for the inbox connection: checks `payload`, queueing or counting it.
    func screen(_ payload: [UInt8]) -> InboxDisposition {
        switch opener.check(payload, now: clock.millisecondsSince1970) {
        case .passed(let envelope):
            if case .dropped = continuation.yield(envelope) { return .overflowed }
            return .consumed
        case .dropped(let reason):
            counts.withLock { $0[reason, default: 0] += 1 }
            if reportsEachDrop { monitor.emit(.envelopeDropped(reason: reason, bytes: payload.count)) }
            return .consumed
        }
    }

    /// Ends `checked`: nothing more is queued.
    func finish() {
        continuation.finish()
    }

    /// The drops so far, by reason.
    var snapshot: [EnvelopeDropReason: Int] { counts.withLock { $0 } }
}
