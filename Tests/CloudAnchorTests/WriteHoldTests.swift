import Foundation
import XCTest
@testable import CloudAnchor

/// The write hold: persisted, checked before every put and delete, kept across an identity
/// reset, never set or cleared by the library.
final class WriteHoldTests: XCTestCase {
    func testWriteHold_persistsAndStopsSyncBeforeAnyWrite() async throws {
        try await forEachBackend { rig in
            try await rig.engine().setHold(.held(reason: "restore running"))
            let engine = try rig.engine()
            let hold = try await engine.hold()
            XCTAssertEqual(hold, .held(reason: "restore running"), "a new engine reads the persisted hold")
            let outcome = try await engine.sync(snapshot([("a", "1")]))
            XCTAssertEqual(outcome, .unavailable(.writeHeld))
            let contents = try await rig.remoteContents()
            XCTAssertEqual(contents, [:])
            try await engine.setHold(.none)
            let report = syncedReport(try await engine.sync(snapshot([("a", "1")])))
            XCTAssertEqual(report.uploaded, ["a", markerPath])
        }
    }

    func testWriteHold_setDuringARunStopsItBeforeItsNextPut() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let engine = try rig.engine()
            faults.onOperation { operation, path in
                if operation == .writeBytes, path == "b" { try await engine.setHold(.held(reason: "user")) }
            }
            let outcome = try await engine.sync(snapshot([("a", "1"), ("b", "2"), ("c", "3")]))
            XCTAssertEqual(outcome, .unavailable(.writeHeld))
            XCTAssertEqual(faults.completed(.writeBytes), ["a", "b"])
            let saved = try await rig.savedState().entries.keys.sorted()
            XCTAssertEqual(saved, ["a", "b"])
        }
    }

    func testWriteHold_setDuringARunStopsItBeforeItsNextDelete() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("a", "1"), ("b", "2"), ("c", "3"), ("d", "4")]))
            faults.onOperation { operation, path in
                if operation == .delete, path == "b" { try await engine.setHold(.held(reason: "user")) }
            }
            let outcome = try await engine.sync(snapshot([("a", "1"), ("d", "4")]))
            XCTAssertEqual(outcome, .unavailable(.writeHeld))
            XCTAssertEqual(faults.completed(.delete), ["b"])
        }
    }

    func testWriteHold_survivesAnIdentityReset() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            faults.overrideIdentity("account-a")
            let engine = try rig.engine()
            _ = try await engine.sync(snapshot([("a", "1")]))
            faults.overrideIdentity("account-b")
            faults.onOperation { operation, _ in
                if operation == .identityKey { try await engine.setHold(.held(reason: "switch")) }
            }
            let outcome = try await engine.sync(snapshot([("a", "1")]))
            XCTAssertEqual(outcome, .unavailable(.writeHeld))
            let state = try await rig.savedState()
            XCTAssertEqual(state.identity, "account-b", "the reset happened")
            let hold = try await engine.hold()
            XCTAssertEqual(hold, .held(reason: "switch"), "and kept the hold")
        }
    }

    func testWriteHold_theLibraryNeverSetsOrClearsIt() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            let engine = try rig.engine()
            faults.inject(CloudError.storageFull, on: .writeBytes)
            _ = try? await engine.sync(snapshot([("a", "1")]))
            _ = try await engine.sync(snapshot([("a", "1")]))
            _ = try await rig.restorer().start(RestorePlan(source: SourceRef(identityKey: "", markerRemoteId: nil,
                                                                             markerFingerprint: ""), files: []))
            let untouched = try await engine.hold()
            XCTAssertEqual(untouched, WriteHold.none)
            try await engine.setHold(.held(reason: "app"))
            faults.inject(CloudError.offline, on: .list)
            _ = try? await engine.sync(snapshot([("a", "1")]))
            _ = try await rig.restorer().resume()
            let kept = try await engine.hold()
            XCTAssertEqual(kept, .held(reason: "app"))
        }
    }
}
