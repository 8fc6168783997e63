/// What a `push_ack` says of the receiver's root of the pushed namespace once it applied the
/// push's last part: the push it answers, named by the push's change counter (so the pusher
/// knows which of its pushes in flight it answers, and whether a later one is still on its
/// way), and whether the receiver's root is the root that push carried (then the 16 root bytes
/// stay off the wire) or another, given whole.
///
/// Invariants: `.matched` is sent only when the receiver's root equals the root of the push whose
/// change counter it names; `.differs` carries `StateDigest.setHashRootBytes` bytes.
package enum PushAnswer: Sendable, Hashable {
    /// The receiver's root is the one the push of change counter `pushChange` carried.
    case matched(pushChange: UInt64)
    /// After the push of change counter `pushChange`, the receiver's root is `root` (its first
    /// `StateDigest.setHashRootBytes` bytes), not the push's.
    case differs(pushChange: UInt64, root: [UInt8])

    /// The change counter of the push answered.
    package var pushChange: UInt64 {
        switch self {
        case .matched(let pushChange), .differs(let pushChange, _): pushChange
        }
    }
}
