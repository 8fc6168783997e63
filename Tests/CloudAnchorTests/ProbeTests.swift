import Foundation
import XCTest
@testable import CloudAnchor

/// One test per probe outcome, plus `SourceRef.matches`.
final class ProbeTests: XCTestCase {
    func testProbeUnavailable_availabilityGateAnswersFirstAndTouchesNothing() async throws {
        try await forEachBackend { rig in
            let engine = try rig.engine()
            rig.availability.set(.noAccount)
            let noAccount = await engine.probe()
            XCTAssertEqual(noAccount, .unavailable(.noAccount))
            rig.availability.set(.needsConsent)
            let needsConsent = await engine.probe()
            XCTAssertEqual(needsConsent, .unavailable(.needsConsent))
            if let faults = rig.faults { XCTAssertEqual(faults.journal(), []) }
        }
    }

    func testProbeFailed_aListingFailureIsReportedNotThrown() async throws {
        try await forEachBackend { rig in
            if let faults = rig.faults {
                faults.inject(CloudError.authRevoked, on: .list)
                let result = await (try rig.engine()).probe()
                XCTAssertEqual(result, .failed(.authRevoked))
            } else {
                try FileManager.default.removeItem(at: rig.remoteRoot)
                let result = await (try rig.engine()).probe()
                XCTAssertEqual(result, .failed(.offline), "a missing drive folder is offline")
            }
        }
    }

    func testProbeNone_noFilesAtAll() async throws {
        try await forEachBackend { rig in
            let result = await (try rig.engine()).probe()
            XCTAssertEqual(result, ProbeResult.none)
        }
    }

    func testProbeNotReady_filesWithoutAMarker() async throws {
        try await forEachBackend { rig in
            try rig.putRemote("a.txt", "alpha")
            let result = await (try rig.engine()).probe()
            XCTAssertEqual(result, .notReady)
        }
    }

    func testProbeNotReady_aMarkerThatIsNotDownloadableYet() async throws {
        try await forEachBackend([.faultInjecting]) { rig in
            let faults = try XCTUnwrap(rig.faults)
            _ = try await rig.engine().sync(snapshot([("a", "1")]))
            faults.inject(CloudError.notFound, on: .readBytes, path: markerPath)
            let result = await (try rig.engine()).probe()
            XCTAssertEqual(result, .notReady)
        }
    }

    func testProbeFound_markerBytesSourceRefAndFiles() async throws {
        try await forEachBackend { rig in
            _ = try await rig.engine().sync(snapshot([("b", "22"), ("a", "1")], marker: "the marker"))
            guard case .found(let found) = await (try rig.engine()).probe() else { return XCTFail("expected .found") }
            XCTAssertEqual(found.marker, Data("the marker".utf8))
            XCTAssertEqual(found.files.map(\.path), ["a", "b"])
            XCTAssertEqual(found.files.map(\.size), [1, 2])
            let identity = try await rig.storage.identityKey()
            XCTAssertEqual(found.source.identityKey, identity)
            XCTAssertEqual(found.source.markerFingerprint, ContentHash.sha256(Data("the marker".utf8)))
        }
    }

    func testSourceRefMatches_comparesIdentityAndFingerprintSoAnyMarkerRewriteIsAChange() async throws {
        try await forEachBackend { rig in
            _ = try await rig.engine().sync(snapshot([("a", "1")], marker: "backup at 10:00"))
            guard case .found(let first) = await (try rig.engine()).probe() else { return XCTFail("expected .found") }
            var otherId = first.source
            otherId.markerRemoteId = "another id"
            XCTAssertTrue(first.source.matches(otherId), "the remote id is pinned but not compared")
            try rig.putRemote(markerPath, "backup at 10:05")
            guard case .found(let second) = await (try rig.engine()).probe() else { return XCTFail("expected .found") }
            XCTAssertFalse(first.source.matches(second.source), "a newer timestamp alone is a changed source")
            var otherAccount = first.source
            otherAccount.identityKey = "someone else"
            XCTAssertFalse(first.source.matches(otherAccount))
        }
    }
}
