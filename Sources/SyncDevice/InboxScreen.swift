import SyncRelay
import NatsRelay
import Synchronization
import SyncEnvelope
import SyncKernel

/// The gate's stateless stage run where a device's envelopes arrive, on the relay client's
/// thread: every check but the seen set (`EnvelopeOpener.check`), so an envelope's cryptography is
/// paid once and junk never wakes the inbox; what passes is queued, checked, for `DeviceInbox`.
///
/// Invariants: each payload is either queued on `checked` (in arrival order), counted under its
/// drop reason, or, when `checked`'s buffer is full, reported to the connection as overflowed
/// (counted there): exactly one. A session envelope under the index of a reply session whose
/// accept may be queued ahead of it (`EnvelopeOpener.awaitedReply`) is queued unchecked, and
/// checked again when the inbox takes it (`resolve`), after the envelopes before it: then it
/// passes or is counted under its drop reason (and its sibling is named, so the device says
/// hello again: the accept was lost). The device's drop counts are these and the gate's (the seen set's
/// drops), each envelope in exactly one of them. A drop takes one lock and allocates nothing once
/// its reason was seen, and is reported as an event only when `reportsEachDrop`.
final class InboxScreen: Sendable {
    /// An envelope queued for the inbox.
    enum Screened: Sendable {
        /// It passed every check but the seen set.
        case checked(CheckedEnvelope)
        /// A session envelope of a reply session not filed yet when it arrived: checked when taken.
        case awaitingReply([UInt8])
    }

    /// The envelopes queued for the inbox, in arrival order; ends with `finish()`.
    let checked: AsyncStream<Screened>
    private let continuation: AsyncStream<Screened>.Continuation
    private let opener: EnvelopeOpener
    private let clock: any WallClock
    private let monitor: DeviceMonitor
    private let reportsEachDrop: Bool
    private let counts = Mutex<[EnvelopeDropReason: Int]>([:])

    /// A screen running `opener` at `clock`'s time, holding up to `buffer` checked envelopes the
    /// inbox has not taken yet, reporting each drop to `monitor` when `reportsEachDrop`.
    init(opener: EnvelopeOpener, clock: any WallClock, buffer: Int, monitor: DeviceMonitor, reportsEachDrop: Bool) {
        (checked, continuation) = AsyncStream.makeStream(of: Screened.self, bufferingPolicy: .bufferingOldest(buffer))
        self.opener = opener
        self.clock = clock
        self.monitor = monitor
        self.reportsEachDrop = reportsEachDrop
    }

    /// The screen for the inbox connection: checks `payload`, queueing or counting it.
    func screen(_ payload: [UInt8]) -> InboxDisposition {
        switch opener.check(payload, now: clock.millisecondsSince1970) {
        case .passed(let envelope):
            if case .dropped = continuation.yield(.checked(envelope)) { return .overflowed }
            return .consumed
        case .dropped(.unknownSession) where opener.awaitedReply(payload) != nil:
            if case .dropped = continuation.yield(.awaitingReply(payload)) { return .overflowed }
            return .consumed
        case .dropped(let reason):
            count(reason, bytes: payload.count)
            return .consumed
        }
    }

    /// What taking `screened` gives the inbox: the checked envelope, a deferred one checked now,
    /// or nothing (a deferred one that fails, counted under its drop reason); and, when that one
    /// still names a reply session whose accept never came, the sibling that sends on it.
    func resolve(_ screened: Screened) -> (envelope: CheckedEnvelope?, replyLost: AwaitedReply?) {
        switch screened {
        case .checked(let envelope): return (envelope, nil)
        case .awaitingReply(let payload):
            switch opener.check(payload, now: clock.millisecondsSince1970) {
            case .passed(let envelope): return (envelope, nil)
            case .dropped(let reason):
                count(reason, bytes: payload.count)
                return (nil, reason == .unknownSession ? opener.awaitedReply(payload) : nil)
            }
        }
    }

    private func count(_ reason: EnvelopeDropReason, bytes: Int) {
        counts.withLock { $0[reason, default: 0] += 1 }
        if reportsEachDrop { monitor.emit(.envelopeDropped(reason: reason, bytes: bytes)) }
    }

    /// Ends `checked`: nothing more is queued.
    func finish() {
        continuation.finish()
    }

    /// The drops so far, by reason.
    var snapshot: [EnvelopeDropReason: Int] { counts.withLock { $0 } }
}
