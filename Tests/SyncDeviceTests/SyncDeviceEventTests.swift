import Foundation
import SyncDevice
import XCTest

/// The device's events are its own: every event of the replica, the relay and the join flows
/// becomes one case of `SyncDeviceEvent` with the JSON words it had, errors become stable
/// reports, and no case carries another component's event, outcome or error type.
final class SyncDeviceEventTests: XCTestCase {

    private func names(_ events: [SyncDeviceEvent]) -> [String] { events.map(\.name) }

    func testReplicaEventsBecomeDeviceEventsWithTheirJSONWordsAndStableErrorReports() throws {
        let peer = try DeviceID(publicKey: [UInt8](repeating: 5, count: 32))
        let error = SyncKernelError(.unknownFrameKind)
        let outcome = ApplyOutcome(namespace: "notes", rowsApplied: 3, tombstonesApplied: 1, digestChanged: true,
                                   keysToShipBack: [[1]], collidedKeys: [], epochChange: nil, conflictsOpened: [],
                                   conflictsResolved: [], refusedOperations: 0, backfillConflicts: [], unresolvedKeys: [[2], [3]])
        let replica: [(ReplicaEvent, String)] = [
            (.frameRefused(from: peer, error: error), "frame_refused"),
            (.siblingCapabilities(peer: peer, capabilities: ["sketch2"]), "sibling_capabilities"),
            (.peerSchemaMismatch(peer: peer, local: SchemaFingerprint(value: 1), remote: SchemaFingerprint(value: 2)), "schema_mismatch"),
            (.stormSuspected(peer: peer, namespaces: ["notes"], backoffUntil: 9), "storm_suspected"),
            (.applied(peer: peer, outcome: outcome), "applied"),
            (.applyFailed(peer: peer, namespace: "notes", error: SyncKernelError(.storageFull)), "apply_failed"),
            (.converged(peer: peer), "round_completed"),
            (.storeFailed(error: error), "store_failed"),
            (.storeRolledBack(reason: .deviceChanged, epoch: 2, peer: nil), "store_rolled_back"),
            (.versionsCollided(peer: peer, namespace: "notes", keys: [[1], [2]]), "versions_collided"),
            (.rowsQuarantined([]), "rows_quarantined"),
            (.concurrentEdit(namespace: "notes", key: [1], versions: []), "concurrent_edit"),
            (.conflictResolved(namespace: "notes", key: [1]), "conflict_resolved"),
            (.operationsRefused(peer: peer, namespace: "notes", count: 2), "operations_refused"),
            (.backfillConflict(peer: peer, namespace: "notes", key: [1], fields: ["sender"]), "backfill_conflict"),
        ]
        let mapped = replica.map { SyncDeviceEvent($0.0) }
        XCTAssertEqual(names(mapped), replica.map(\.1))
        XCTAssertEqual(Set(names(mapped)).count, mapped.count, "one name per case")
        XCTAssertEqual(SyncDeviceEvent(ReplicaEvent.converged(peer: peer)), .roundCompleted(peer: peer))
        XCTAssertEqual(SyncDeviceEvent(ReplicaEvent.frameRefused(from: peer, error: error)), .frameRefused(peer: peer, error: ErrorReport(error)))
        let applied = SyncDeviceEvent(ReplicaEvent.applied(peer: peer, outcome: outcome))
        guard case .applied(_, let changes) = applied else { return XCTFail("\(applied)") }
        XCTAssertEqual([changes.rows, changes.deletes], [3, 1])
        XCTAssertTrue(changes.changedDigest)
        let object = applied.jsonObject()
        XCTAssertEqual(object["rows"] as? Int, 3)
        XCTAssertEqual(object["tombstones"] as? Int, 1)
        XCTAssertEqual(object["changed"] as? Bool, true)
        XCTAssertEqual(object["unresolved"] as? Int, 2, "the pushed keys left unmerged")
        XCTAssertEqual(object["peer"] as? String, peer.hex)
        let failed = SyncDeviceEvent(ReplicaEvent.applyFailed(peer: peer, namespace: "notes", error: SyncKernelError(.storageFull))).jsonObject()
        XCTAssertEqual(failed["error"] as? String, SyncKernelError.Code.storageFull.rawValue, "the code string, as before")
    }

    func testRelayAndJoinEventsBecomeOneDeviceCaseEach() throws {
        let peer = try DeviceID(publicKey: [UInt8](repeating: 5, count: 32))
        let relay: [RelayEvent] = [.connected, .disconnected, .reconnected, .closed]
        XCTAssertEqual(names(relay.map(SyncDeviceEvent.init)), ["connected", "disconnected", "reconnected", "relay_closed"])
        XCTAssertEqual(relay.map(SyncDeviceEvent.init), [.relayConnected, .relayDisconnected, .relayReconnected, .relayClosed])
        let id = ApprovalID(bytes: [1, 2, 3, 4])
        let responder: [JoinResponderEvent] = [
            .requestDropped(reason: .undecodable, bytes: 10), .approved(id: id, device: peer, name: "phone"), .rejected(id: id),
            .approvalExpired(id: id), .approvalWithdrawn(id: id, cause: .credentialSpent), .ledgerLearned(entries: 2),
        ]
        XCTAssertEqual(names(responder.map(SyncDeviceEvent.init)),
                       ["sign_in_dropped", "approved", "approval_rejected", "approval_expired", "approval_withdrawn", "sign_in_ledger_learned"])
        let requester: [JoinRequesterEvent] = [
            .requestSent(attempt: 1), .replyDropped(reason: .undecodable, bytes: 4), .waiting(remainingSeconds: 3, acknowledged: false),
            .rejected, .refused(.spent), .timedOut(acknowledged: true), .storeFailed(SyncKernelError(.storageFull)),
        ]
        let mapped = requester.map(SyncDeviceEvent.init)
        XCTAssertEqual(names(mapped), ["join_request_sent", "join_reply_dropped", "join_waiting", "join_rejected", "join_refused",
                                       "join_timed_out", "join_store_failed"])
        XCTAssertEqual(mapped.last, .joinStoreFailed(ErrorReport(SyncKernelError(.storageFull))))
        XCTAssertEqual(mapped.last?.jsonObject()["error"] as? String, SyncKernelError.Code.storageFull.rawValue)
        XCTAssertEqual(SyncDeviceEvent(JoinResponderEvent.requestDropped(reason: .undecodable, bytes: 10)).jsonObject()["code"] as? String, "SJ101")
    }

    /// Reads the declaration of `SyncDeviceEvent` and checks the type of every value its cases
    /// carry: none is a component's event, outcome or error type.
    func testNoCaseCarriesAComponentsEventOutcomeOrErrorType() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let source = try String(contentsOf: root.appendingPathComponent("Sources/SyncDevice/SyncDeviceEvent.swift"), encoding: .utf8)
        let cases = source.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.hasPrefix("case ") }
        XCTAssertGreaterThan(cases.count, 40, "every case was read")
        let typeName = try NSRegularExpression(pattern: "\\b[A-Z][A-Za-z0-9]*\\b")
        var carried: Set<String> = []
        for line in cases {
            guard let open = line.firstIndex(of: "(") else { continue }
            let values = String(line[open...])
            for match in typeName.matches(in: values, range: NSRange(values.startIndex..., in: values)) {
                if let range = Range(match.range, in: values) { carried.insert(String(values[range])) }
            }
        }
        XCTAssertTrue(carried.contains("ErrorReport"))
        let forbidden = carried.filter { $0.hasSuffix("Event") || $0.hasSuffix("Outcome") || $0.hasSuffix("Error") }
        XCTAssertEqual(forbidden, [], "cases carry \(forbidden.sorted())")
    }
}
