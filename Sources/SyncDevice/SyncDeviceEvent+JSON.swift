import Foundation
import NatsRelay
import SnapshotTransfer
import SyncJoin
import SyncKernel

/// The JSON form of a device's events, one object per event with an `event` key, as
/// `synckernel device --events json` prints them.
///
/// Invariants: every event maps to exactly one object; the `event` names are stable
/// (`ready`, `stopped`, `connected`, `disconnected`, `reconnected`, `relay_closed`,
/// `envelope_dropped`, `drops_summarised`, `seal_failed`, `round_started`, `round_completed`, `storm_suspected`,
/// `applied`, `apply_failed`, `frame_refused`, `schema_mismatch`, `store_failed`,
/// `store_rolled_back`, `versions_collided`, `rows_quarantined`, `sibling_learned`,
/// `transfer_dropped`, `sign_in_dropped`, `approval_requested`, `approved`, `approval_rejected`,
/// `approval_expired`, `approval_withdrawn`, `sign_in_ledger_learned`, `join_request_sent`,
/// `join_waiting`, `join_acknowledged`, `join_reply_dropped`, `join_granted`, `join_rejected`,
/// `join_refused`, `join_timed_out`, `join_store_failed`, `snapshot_requested`,
/// `snapshot_answered`, `snapshot_acknowledged`, `snapshot_request_sent`, `snapshot_reply`,
/// `snapshot_progress`, `snapshot_absorbed`, `snapshot_abandoned`, `snapshot_failed`); an approval
/// id is 8 random hex digits, safe to print; devices appear as their id in
/// hex, errors as their stable code, reasons, causes, stages and answers as fixed words (never
/// a Swift rendering of a value), and no object carries key material, row contents or keys of
/// rows (only their number).
extension SyncDeviceEvent {
    /// The stable name in the `event` key.
    public var name: String {
        switch self {
        case .started: "ready"
        case .stopped: "stopped"
        case .relayConnected: "connected"
        case .relayDisconnected: "disconnected"
        case .relayReconnected: "reconnected"
        case .relayClosed: "relay_closed"
        case .envelopeDropped: "envelope_dropped"
        case .dropsSummarised: "drops_summarised"
        case .sealFailed: "seal_failed"
        case .sessionRefused: "session_refused"
        case .roundStarted: "round_started"
        case .frameRefused: "frame_refused"
        case .schemaMismatch: "schema_mismatch"
        case .stormSuspected: "storm_suspected"
        case .applied: "applied"
        case .applyFailed: "apply_failed"
        case .roundCompleted: "round_completed"
        case .storeFailed: "store_failed"
        case .storeRolledBack: "store_rolled_back"
        case .versionsCollided: "versions_collided"
        case .rowsQuarantined: "rows_quarantined"
        case .concurrentEdit: "concurrent_edit"
        case .conflictResolved: "conflict_resolved"
        case .operationsRefused: "operations_refused"
        case .backfillConflict: "backfill_conflict"
        case .siblingCapabilities: "sibling_capabilities"
        case .siblingLearned: "sibling_learned"
        case .transferDropped: "transfer_dropped"
        case .signInDropped: "sign_in_dropped"
        case .approvalRequested: "approval_requested"
        case .approved: "approved"
        case .approvalRejected: "approval_rejected"
        case .approvalExpired: "approval_expired"
        case .approvalWithdrawn: "approval_withdrawn"
        case .signInLedgerLearned: "sign_in_ledger_learned"
        case .joinRequestSent: "join_request_sent"
        case .joinWaiting: "join_waiting"
        case .joinRefused: "join_refused"
        case .joinAcknowledged: "join_acknowledged"
        case .joinReplyDropped: "join_reply_dropped"
        case .joinGranted: "join_granted"
        case .joinRejected: "join_rejected"
        case .joinTimedOut: "join_timed_out"
        case .joinStoreFailed: "join_store_failed"
        case .snapshotRequested: "snapshot_requested"
        case .snapshotAnswered: "snapshot_answered"
        case .snapshotAcknowledged: "snapshot_acknowledged"
        case .snapshotRequestSent: "snapshot_request_sent"
        case .snapshotReply: "snapshot_reply"
        case .snapshotProgress: "snapshot_progress"
        case .snapshotAbsorbed: "snapshot_absorbed"
        case .snapshotAbandoned: "snapshot_abandoned"
        case .snapshotFailed: "snapshot_failed"
        }
    }

    /// The event as a JSON-ready object: `event` and the case's own keys.
    public func jsonObject() -> [String: Any] {
        fields.merging(["event": name]) { _, new in new }
    }

    /// The keys of the case beside `event`.
    private var fields: [String: Any] {
        switch self {
        case .started(let device):
            ["device": device.hex]
        case .stopped, .relayConnected, .relayDisconnected, .relayReconnected, .relayClosed, .joinRejected: [:]
        case .envelopeDropped(let reason, let bytes):
            ["reason": reason.name, "code": reason.rawValue, "bytes": bytes]
        case .dropsSummarised(let envelopes, let relay, let period):
            ["envelopes": Dictionary(uniqueKeysWithValues: envelopes.map { ($0.key.name, $0.value) }),
             "relay": Dictionary(uniqueKeysWithValues: relay.map { ($0.key.rawValue, $0.value) }), "seconds": Double(period) / 1_000]
        case .sealFailed(let recipient, let error):
            ["peer": recipient.hex, "error": error.code]
        case .roundStarted(let peer), .sessionRefused(let peer), .roundCompleted(let peer):
            ["peer": peer.hex]
        case .frameRefused(let peer, let error):
            ["peer": peer.hex, "error": error.code, "detail": error.detail]
        case .schemaMismatch(let peer, let local, let remote):
            ["peer": peer.hex, "local": String(local.value, radix: 16), "remote": String(remote.value, radix: 16)]
        case .stormSuspected(let peer, let namespaces, let backoffUntil):
            ["peer": peer.hex, "namespaces": namespaces, "backoff_until": backoffUntil]
        case .applied(let peer, let changes):
            ["peer": peer.hex, "namespace": changes.namespace, "rows": changes.rows, "tombstones": changes.deletes,
             "changed": changes.changedDigest, "unresolved": changes.unresolved]
        case .applyFailed(let peer, let namespace, let error):
            ["peer": peer.hex, "namespace": namespace, "error": error.code]
        case .storeFailed(let error):
            ["error": error.code]
        case .storeRolledBack(let reason, let epoch, let peer):
            ["reason": "\(reason)", "epoch": epoch, "peer": peer.map { $0.hex as Any } ?? NSNull()]
        case .versionsCollided(let peer, let namespace, let keys):
            ["peer": peer.hex, "namespace": namespace, "keys": keys.count]
        case .rowsQuarantined(let rows):
            ["rows": rows.count]
        case .concurrentEdit(let namespace, _, let versions):
            ["namespace": namespace, "versions": versions.count]
        case .conflictResolved(let namespace, _):
            ["namespace": namespace]
        case .operationsRefused(let peer, let namespace, let count):
            ["peer": peer.hex, "namespace": namespace, "count": count]
        case .backfillConflict(let peer, let namespace, _, let fields):
            ["peer": peer.hex, "namespace": namespace, "fields": fields]
        case .siblingCapabilities(let peer, let capabilities):
            ["peer": peer.hex, "capabilities": capabilities]
        case .siblingLearned(let device):
            ["device": device.hex]
        case .transferDropped(let reason):
            ["reason": Self.text(of: reason)]
        case .signInDropped(let reason, let bytes):
            ["reason": reason.name, "code": reason.rawValue, "bytes": bytes,
             "answered": [.approvalsFull, .credentialSpent, .credentialRevoked, .credentialBusy].contains(reason)]
        case .approvalRequested(let approval):
            ["id": approval.id.value, "name": approval.deviceName, "device": approval.device.hex, "deadline": approval.deadline,
             "credential": approval.credential.description]
        case .approvalWithdrawn(let id, let cause):
            ["id": id.value, "cause": cause.word, "by": cause.decider.map { $0 as Any } ?? NSNull()]
        case .signInLedgerLearned(let entries):
            ["entries": entries]
        case .approved(let id, let device, let name):
            ["id": id.value, "device": device.hex, "name": name]
        case .approvalRejected(let id), .approvalExpired(let id):
            ["id": id.value]
        case .joinRequestSent(let attempt):
            ["attempt": attempt]
        case .joinWaiting(let remaining, let acknowledged):
            ["remaining_seconds": remaining, "acknowledged": acknowledged]
        case .joinRefused(let refusal):
            ["reason": refusal.word]
        case .joinAcknowledged(let family):
            ["family": family.value]
        case .joinReplyDropped(let reason, let bytes):
            ["reason": reason.name, "code": reason.rawValue, "bytes": bytes]
        case .joinGranted(let joined):
            ["device": joined.device.hex, "name": joined.name]
        case .joinTimedOut(let acknowledged):
            ["acknowledged": acknowledged]
        case .joinStoreFailed(let error):
            ["error": error.code]
        case .snapshotRequested(let peer):
            ["peer": peer.hex]
        case .snapshotAnswered(let peer, let answer):
            Self.fields(of: answer).merging(["peer": peer.hex]) { _, new in new }
        case .snapshotAcknowledged(let peer, let refusal):
            ["peer": peer.hex, "ok": refusal == nil, "reason": refusal.map { $0.rawValue as Any } ?? NSNull()]
        case .snapshotRequestSent(let peer, let attempt, let wake):
            ["peer": peer.hex, "attempt": attempt, "wake": wake]
        case .snapshotReply(let peer, let answer):
            Self.fields(of: answer).merging(["peer": peer.hex]) { _, new in new }
        case .snapshotProgress(let progress):
            ["phase": progress.phase.rawValue, "bytes": progress.bytes, "total_bytes": progress.totalBytes.map { $0 as Any } ?? NSNull(),
             "rows": progress.rows]
        case .snapshotAbsorbed(let peer, let report):
            ["peer": peer.hex, "rows": report.rows, "deletes": report.deletes, "bytes": report.sealedBytes,
             "seconds": Double(report.totalTime.components.seconds) + Double(report.totalTime.components.attoseconds) / 1e18]
        case .snapshotAbandoned(let peer, let reason):
            ["peer": peer.hex, "reason": reason.rawValue]
        case .snapshotFailed(let error):
            ["error": error.code, "name": error.name]
        }
    }

    private static func fields(of answer: SnapshotAnswer) -> [String: Any] {
        switch answer {
        case .pending: ["answer": "pending"]
        case .offered(let bytes, let algorithm): ["answer": "offer", "bytes": bytes, "algorithm": algorithm]
        case .declined(let reason): ["answer": "decline", "reason": reason.rawValue]
        case .broken(let stage, let code): ["answer": "broken", "stage": stage.rawValue, "error": code]
        case .abandoned(let reason): ["answer": "abandoned", "reason": reason.rawValue]
        }
    }

    private static func text(of reason: TransferDropReason) -> String {
        switch reason {
        case .envelope(let reason): reason.name
        case .foreignAccount: "foreignAccount"
        case .malformed(let code): "malformed \(code)"
        }
    }

    /// The event as one line of JSON with sorted keys.
    public func json() -> String {
        JSONLine.encode(jsonObject())
    }
}
