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

    /// The event as a JSON-ready object.
    public func jsonObject() -> [String: Any] {
        var object: [String: Any] = ["event": name]
        switch self {
        case .started(let device):
            object["device"] = device.hex
        case .stopped, .relayConnected, .relayDisconnected, .relayReconnected, .relayClosed, .joinRejected:
            break
        case .envelopeDropped(let reason, let bytes):
            object["reason"] = reason.name
            object["code"] = reason.rawValue
            object["bytes"] = bytes
        case .dropsSummarised(let envelopes, let relay, let period):
            object["envelopes"] = Dictionary(uniqueKeysWithValues: envelopes.map { ($0.key.name, $0.value) })
            object["relay"] = Dictionary(uniqueKeysWithValues: relay.map { ($0.key.rawValue, $0.value) })
            object["seconds"] = Double(period) / 1_000
        case .sealFailed(let recipient, let error):
            object["peer"] = recipient.hex
            object["error"] = error.code
        case .roundStarted(let peer), .sessionRefused(let peer), .roundCompleted(let peer):
            object["peer"] = peer.hex
        case .frameRefused(let peer, let error):
            object.merge(["peer": peer.hex, "error": error.code, "detail": error.detail]) { _, new in new }
        case .schemaMismatch(let peer, let local, let remote):
            object.merge(["peer": peer.hex, "local": String(local.value, radix: 16), "remote": String(remote.value, radix: 16)]) { _, new in new }
        case .stormSuspected(let peer, let namespaces, let backoffUntil):
            object.merge(["peer": peer.hex, "namespaces": namespaces, "backoff_until": backoffUntil]) { _, new in new }
        case .applied(let peer, let changes):
            object.merge(["peer": peer.hex, "namespace": changes.namespace, "rows": changes.rows,
                          "tombstones": changes.deletes, "changed": changes.changedDigest]) { _, new in new }
        case .applyFailed(let peer, let namespace, let error):
            object.merge(["peer": peer.hex, "namespace": namespace, "error": error.code]) { _, new in new }
        case .storeFailed(let error):
            object["error"] = error.code
        case .storeRolledBack(let reason, let epoch, let peer):
            object.merge(["reason": "\(reason)", "epoch": epoch, "peer": peer.map { $0.hex as Any } ?? NSNull()]) { _, new in new }
        case .versionsCollided(let peer, let namespace, let keys):
            object.merge(["peer": peer.hex, "namespace": namespace, "keys": keys.count]) { _, new in new }
        case .rowsQuarantined(let rows):
            object["rows"] = rows.count
        case .concurrentEdit(let namespace, _, let versions):
            object.merge(["namespace": namespace, "versions": versions.count]) { _, new in new }
        case .conflictResolved(let namespace, _):
            object["namespace"] = namespace
        case .operationsRefused(let peer, let namespace, let count):
            object.merge(["peer": peer.hex, "namespace": namespace, "count": count]) { _, new in new }
        case .backfillConflict(let peer, let namespace, _, let fields):
            object.merge(["peer": peer.hex, "namespace": namespace, "fields": fields]) { _, new in new }
        case .siblingCapabilities(let peer, let capabilities):
            object.merge(["peer": peer.hex, "capabilities": capabilities]) { _, new in new }
        case .siblingLearned(let device):
            object["device"] = device.hex
        case .transferDropped(let reason):
            object["reason"] = Self.text(of: reason)
        case .signInDropped(let reason, let bytes):
            object.merge(["reason": reason.name, "code": reason.rawValue, "bytes": bytes,
                          "answered": [.approvalsFull, .credentialSpent, .credentialRevoked, .credentialBusy].contains(reason)]) { _, new in new }
        case .approvalRequested(let approval):
            object.merge(["id": approval.id.value, "name": approval.deviceName, "device": approval.device.hex,
                          "deadline": approval.deadline, "credential": approval.credential.description]) { _, new in new }
        case .approvalWithdrawn(let id, let cause):
            object.merge(["id": id.value, "cause": cause.word, "by": cause.decider.map { $0 as Any } ?? NSNull()]) { _, new in new }
        case .signInLedgerLearned(let entries):
            object["entries"] = entries
        case .approved(let id, let device, let name):
            object.merge(["id": id.value, "device": device.hex, "name": name]) { _, new in new }
        case .approvalRejected(let id), .approvalExpired(let id):
            object["id"] = id.value
        case .joinRequestSent(let attempt):
            object["attempt"] = attempt
        case .joinWaiting(let remaining, let acknowledged):
            object.merge(["remaining_seconds": remaining, "acknowledged": acknowledged]) { _, new in new }
        case .joinRefused(let refusal):
            object["reason"] = refusal.word
        case .joinAcknowledged(let family):
            object["family"] = family.value
        case .joinReplyDropped(let reason, let bytes):
            object.merge(["reason": reason.name, "code": reason.rawValue, "bytes": bytes]) { _, new in new }
        case .joinGranted(let joined):
            object.merge(["device": joined.device.hex, "name": joined.name]) { _, new in new }
        case .joinTimedOut(let acknowledged):
            object["acknowledged"] = acknowledged
        case .joinStoreFailed(let error):
            object["error"] = error.code
        case .snapshotRequested(let peer):
            object["peer"] = peer.hex
        case .snapshotAnswered(let peer, let answer):
            object["peer"] = peer.hex
            object.merge(Self.fields(of: answer)) { _, new in new }
        case .snapshotAcknowledged(let peer, let refusal):
            object["peer"] = peer.hex
            object["ok"] = refusal == nil
            object["reason"] = refusal.map { $0.rawValue as Any } ?? NSNull()
        case .snapshotRequestSent(let peer, let attempt, let wake):
            object["peer"] = peer.hex
            object["attempt"] = attempt
            object["wake"] = wake
        case .snapshotReply(let peer, let answer):
            object["peer"] = peer.hex
            object.merge(Self.fields(of: answer)) { _, new in new }
        case .snapshotProgress(let progress):
            object["phase"] = progress.phase.rawValue
            object["bytes"] = progress.bytes
            object["total_bytes"] = progress.totalBytes.map { $0 as Any } ?? NSNull()
            object["rows"] = progress.rows
        case .snapshotAbsorbed(let peer, let report):
            object["peer"] = peer.hex
            object["rows"] = report.rows
            object["deletes"] = report.deletes
            object["bytes"] = report.sealedBytes
            object["seconds"] = Double(report.totalTime.components.seconds)
                + Double(report.totalTime.components.attoseconds) / 1e18
        case .snapshotAbandoned(let peer, let reason):
            object["peer"] = peer.hex
            object["reason"] = reason.rawValue
        case .snapshotFailed(let error):
            object["error"] = error.code
            object["name"] = error.name
        }
        return object
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
