import Foundation
import NatsRelay
import SyncKernel

/// The JSON form of a device's events, one object per event with an `event` key, as
/// `synckernel device --events json` prints them.
///
/// Invariants: every event maps to exactly one object; the `event` names are stable
/// (`ready`, `stopped`, `connected`, `disconnected`, `reconnected`, `relay_closed`,
/// `envelope_dropped`, `seal_failed`, `round_started`, `round_completed`, `storm_suspected`,
/// `applied`, `apply_failed`, `frame_refused`, `schema_mismatch`, `store_failed`,
/// `store_rolled_back`, `versions_collided`, `rows_quarantined`); devices appear as their id in
/// hex, errors as their stable code, and no object carries key material, row contents or keys
/// of rows (only their number).
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
        case .sealFailed: "seal_failed"
        case .roundStarted: "round_started"
        case .replica(let event): Self.name(of: event)
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
        case .sealFailed(let recipient, let error):
            object["peer"] = recipient.hex
            object["error"] = error.code.rawValue
        case .roundStarted(let peer):
            object["peer"] = peer.hex
        case .replica(let event):
            object.merge(Self.fields(of: event)) { _, new in new }
        }
        return object
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
        }
    }

    private static func fields(of event: ReplicaEvent) -> [String: Any] {
        switch event {
        case .frameRefused(let from, let error):
            ["peer": from.hex, "error": error.code.rawValue]
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
        }
    }
}
