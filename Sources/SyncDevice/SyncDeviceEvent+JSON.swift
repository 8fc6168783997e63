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
        case .relay(.connected): "connected"
        case .relay(.disconnected): "disconnected"
        case .relay(.reconnected): "reconnected"
        case .relay(.closed): "relay_closed"
        case .envelopeDropped: "envelope_dropped"
        case .dropsSummarised: "drops_summarised"
        case .sealFailed: "seal_failed"
        case .sessionRefused: "session_refused"
        case .roundStarted: "round_started"
        case .replica(let event): Self.name(of: event)
        case .siblingLearned: "sibling_learned"
        case .transferDropped: "transfer_dropped"
        case .joinResponder(let event): Self.name(of: event)
        case .joinRequester(let event): Self.name(of: event)
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
        case .stopped, .relay:
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
            object["error"] = error.code.rawValue
        case .roundStarted(let peer), .sessionRefused(let peer):
            object["peer"] = peer.hex
        case .replica(let event):
            object.merge(Self.fields(of: event)) { _, new in new }
        case .siblingLearned(let device):
            object["device"] = device.hex
        case .transferDropped(let reason):
            object["reason"] = Self.text(of: reason)
        case .joinResponder(let event):
            object.merge(Self.fields(of: event)) { _, new in new }
        case .joinRequester(let event):
            object.merge(Self.fields(of: event)) { _, new in new }
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

    private static func name(of event: JoinResponderEvent) -> String {
        switch event {
        case .requestDropped: "sign_in_dropped"
        case .approvalRequested: "approval_requested"
        case .approved: "approved"
        case .rejected: "approval_rejected"
        case .approvalExpired: "approval_expired"
        case .approvalWithdrawn: "approval_withdrawn"
        case .ledgerLearned: "sign_in_ledger_learned"
        }
    }

    private static func fields(of event: JoinResponderEvent) -> [String: Any] {
        switch event {
        case .requestDropped(let reason, let bytes):
            ["reason": reason.name, "code": reason.rawValue, "bytes": bytes,
             "answered": [.approvalsFull, .credentialSpent, .credentialRevoked, .credentialBusy].contains(reason)]
        case .approvalRequested(let approval):
            ["id": approval.id.value, "name": approval.deviceName, "device": approval.device.hex, "deadline": approval.deadline,
             "credential": approval.credential.description]
        case .approvalWithdrawn(let id, let cause):
            ["id": id.value, "cause": cause.word, "by": cause.decider.map { $0 as Any } ?? NSNull()]
        case .ledgerLearned(let entries):
            ["entries": entries]
        case .approved(let id, let device, let name):
            ["id": id.value, "device": device.hex, "name": name]
        case .rejected(let id), .approvalExpired(let id):
            ["id": id.value]
        }
    }

    private static func name(of event: JoinRequesterEvent) -> String {
        switch event {
        case .requestSent: "join_request_sent"
        case .waiting: "join_waiting"
        case .refused: "join_refused"
        case .acknowledged: "join_acknowledged"
        case .replyDropped: "join_reply_dropped"
        case .granted: "join_granted"
        case .rejected: "join_rejected"
        case .timedOut: "join_timed_out"
        case .storeFailed: "join_store_failed"
        }
    }

    private static func fields(of event: JoinRequesterEvent) -> [String: Any] {
        switch event {
        case .requestSent(let attempt): ["attempt": attempt]
        case .waiting(let remaining, let acknowledged): ["remaining_seconds": remaining, "acknowledged": acknowledged]
        case .refused(let refusal): ["reason": refusal.word]
        case .acknowledged(let family): ["family": family.value]
        case .replyDropped(let reason, let bytes): ["reason": reason.name, "code": reason.rawValue, "bytes": bytes]
        case .granted(let joined): ["device": joined.device.hex, "name": joined.name]
        case .rejected: [:]
        case .timedOut(let acknowledged): ["acknowledged": acknowledged]
        case .storeFailed(let error): ["error": error.code.rawValue]
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

    private static func name(of event: ReplicaEvent) -> String {
        switch event {
        case .frameRefused: "frame_refused"
        case .peerSchemaMismatch: "schema_mismatch"
        case .stormSuspected: "storm_suspected"
        case .applied: "applied"
        case .applyFailed: "apply_failed"
        case .converged: "round_completed"
        case .storeFailed: "store_failed"
        case .storeRolledBack: "store_rolled_back"
        case .versionsCollided: "versions_collided"
        case .rowsQuarantined: "rows_quarantined"
        case .concurrentEdit: "concurrent_edit"
        case .conflictResolved: "conflict_resolved"
        case .operationsRefused: "operations_refused"
        case .backfillConflict: "backfill_conflict"
        case .siblingCapabilities: "sibling_capabilities"
        }
    }

    private static func fields(of event: ReplicaEvent) -> [String: Any] {
        switch event {
        case .frameRefused(let from, let error):
            ["peer": from.hex, "error": error.code.rawValue, "detail": error.detail]
        case .peerSchemaMismatch(let peer, let local, let remote):
            ["peer": peer.hex, "local": String(local.value, radix: 16), "remote": String(remote.value, radix: 16)]
        case .stormSuspected(let peer, let namespaces, let backoffUntil):
            ["peer": peer.hex, "namespaces": namespaces, "backoff_until": backoffUntil]
        case .applied(let peer, let outcome):
            ["peer": peer.hex, "namespace": outcome.namespace, "rows": outcome.rowsApplied,
             "tombstones": outcome.tombstonesApplied, "changed": outcome.digestChanged]
        case .applyFailed(let peer, let namespace, let error):
            ["peer": peer.hex, "namespace": namespace, "error": error.code.rawValue]
        case .converged(let peer):
            ["peer": peer.hex]
        case .storeFailed(let error):
            ["error": error.code.rawValue]
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
        }
    }
}
