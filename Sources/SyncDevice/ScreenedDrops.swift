import Synchronization
import SyncEnvelope

/// The envelopes a running device refused on the relay client's thread with the gate's free
/// checks (`EnvelopeGate.freeCheck`: size, version), before they were queued for the inbox.
///
/// Invariants: each refusal is counted once under its reason and never reaches the gate, so the
/// device's drop counts are the gate's plus these, each envelope in exactly one of them; counting
/// takes one lock and allocates nothing once a reason was seen.
final class ScreenedDrops: Sendable {
    private let counts = Mutex<[EnvelopeDropReason: Int]>([:])

    /// The screen for the inbox connection: true for a payload that passes the free checks,
    /// false (counted) for one that does not.
    func screen(_ payload: [UInt8]) -> Bool {
        guard let reason = EnvelopeGate.freeCheck(payload) else { return true }
        counts.withLock { $0[reason, default: 0] += 1 }
        return false
    }

    /// The refusals so far, by reason.
    var snapshot: [EnvelopeDropReason: Int] { counts.withLock { $0 } }
}
