import Foundation
import SyncDevice
import SyncJoin

/// The log lines `synckernel device` writes for the join protocol's events.
///
/// Invariants: every line is built from stable words, numbers, ids and device names (never a
/// Swift rendering of an enum or a struct); an approval prompt names the device that asks (its
/// name and short id), the device it will be answered on, and how long it waits; a withdrawn
/// prompt names who decided; a joining device's lines name the cause of every outcome.
enum JoinLogLine {
    /// The log line of an event of admitting others (nil for any other event); `device` is
    /// this device's name.
    static func responder(_ event: SyncDeviceEvent, device: String) -> String? {
        switch event {
        case .signInDropped(let reason, let bytes):
            switch reason {
            case .approvalsFull, .credentialBusy: "refused a sign-in request (\(reason)): too many requests wait for a decision"
            case .credentialSpent: "refused a sign-in request (\(reason)): its credential admitted a device already"
            case .credentialRevoked: "refused a sign-in request (\(reason)): its credential was revoked"
            default: "dropped a message of \(bytes) bytes on the discovery subject: \(reason)"
            }
        case .approvalRequested(let approval):
            "\(approval.deviceName) (device \(approval.device)) asks to join with credential \(approval.credential); "
                + "answer here on \(device) within \(seconds(until: approval.deadline)) s: type `approve \(approval.id)` "
                + "or `reject \(approval.id)`"
        case .approved(let id, let joined, let name): "approved \(id): \(name) (device \(joined)) is admitted"
        case .approvalRejected(let id): "rejected \(id): nothing was recorded"
        case .approvalExpired(let id): "prompt \(id) expired: nobody decided before the device stopped waiting"
        case .approvalWithdrawn(let id, .approvedElsewhere(let by)): "prompt \(id) withdrawn: approved on \(by)"
        case .approvalWithdrawn(let id, .rejectedElsewhere(let by)): "prompt \(id) withdrawn: rejected on \(by)"
        case .approvalWithdrawn(let id, .credentialSpent): "prompt \(id) withdrawn: its credential admitted another device (refused)"
        case .approvalWithdrawn(let id, .credentialRevoked): "prompt \(id) withdrawn: its credential was revoked (refused)"
        case .signInLedgerLearned(let entries): "learned \(entries) spent or revoked sign-in credentials from a sibling"
        default: nil
        }
    }

    /// The log line of a joining device's event (nil for any other event).
    static func requester(_ event: SyncDeviceEvent) -> String? {
        switch event {
        case .joinRequestSent(let attempt): "sign-in request sent (attempt \(attempt)), waiting for a sibling"
        case .joinWaiting(let remaining, true): "waiting \(remaining) s more for the sibling's user to decide"
        case .joinWaiting(let remaining, false):
            "waiting \(remaining) s more for a sibling to answer (nothing answers while no device of the account is online)"
        case .joinAcknowledged(let family): "a sibling answered: approve on your \(family.value)"
        case .joinReplyDropped(let reason, let bytes): "dropped a reply of \(bytes) bytes: \(reason)"
        case .joinGranted(let joined): "granted: joined as \(joined.name)"
        case .joinRejected: "rejected: a sibling's user refused this device"
        case .joinRefused(let refusal): "refused (\(refusal.word)): \(refusal.explanation)"
        case .joinTimedOut(true): "no decision: a sibling asked its user, but nobody decided in time"
        case .joinTimedOut(false): "nobody answered: no device of the account is online"
        case .joinStoreFailed(let error): "the grant could not be stored: \(error.code)"
        default: nil
        }
    }

    /// Whole seconds from now until `deadline` (milliseconds since 1970), at least 0.
    private static func seconds(until deadline: Int64) -> Int64 {
        max(0, (deadline - Int64(Date().timeIntervalSince1970 * 1_000) + 999) / 1_000)
    }
}
