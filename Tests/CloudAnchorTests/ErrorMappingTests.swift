import Foundation
import XCTest
@testable import CloudAnchor

/// One test per row of the contract's error mapping table, for each backend that can meet the
/// situation: the folder backend (its own file-system errors), the WebDAV backend (HTTP statuses,
/// through a scripted transport so 507 or 429 can be produced), and the fault-injecting backend
/// (every `CloudError` carried unchanged through sync, probe and restore).
final class ErrorMappingTests: XCTestCase {
    private func response(_ status: Int, _ headers: [String: String] = [:], _ body: String = "")
        -> Result<HTTPResponse, URLError> {
        .success(HTTPResponse(status: status, headers: headers, body: Data(body.utf8)))
    }

    private func dav(_ script: [Result<HTTPResponse, URLError>], sleeper: RecordingSleeper = RecordingSleeper())
        throws -> (WebDAVStorage, ScriptedTransport) {
        let transport = ScriptedTransport(script)
        let url = try XCTUnwrap(URL(string: "http://127.0.0.1:1/backup/"))
        return (WebDAVStorage(baseURL: url, transport: transport, sleeper: sleeper), transport)
    }

    private func assertThrows(_ expected: CloudError, file: StaticString = #filePath, line: UInt = #line,
                              _ body: () async throws -> Void) async {
        do {
            try await body()
            XCTFail("expected \(expected), nothing was thrown", file: file, line: line)
        } catch {
            XCTAssertEqual(error as? CloudError, expected, "\(error)", file: file, line: line)
        }
    }

    // MARK: Row 1: out of space or quota → StorageFull

    func testErrorMappingRow1_outOfSpaceAndQuotaAreStorageFull_folder() {
        XCTAssertEqual(FolderStorage.cloudError(CocoaError(.fileWriteOutOfSpace)), .storageFull)
        XCTAssertEqual(FolderStorage.cloudError(NSError(domain: NSCocoaErrorDomain, code: 4354)), .storageFull)
        XCTAssertEqual(FolderStorage.cloudError(errno: ENOSPC), .storageFull)
        XCTAssertEqual(FolderStorage.cloudError(errno: EDQUOT), .storageFull)
        let wrapped = NSError(domain: NSCocoaErrorDomain, code: CocoaError.fileWriteUnknown.rawValue,
                              userInfo: [NSUnderlyingErrorKey: NSError(domain: NSPOSIXErrorDomain, code: Int(ENOSPC))])
        XCTAssertEqual(FolderStorage.cloudError(wrapped), .storageFull)
    }

    func testErrorMappingRow1_http507AndAQuota403AreStorageFull_webDAV() async throws {
        let (full, _) = try dav([response(201), response(507)])
        await assertThrows(.storageFull) { _ = try await full.writeBytes("a", Data("x".utf8)) }
        let quota = "<d:error xmlns:d=\"DAV:\"><d:quota-not-exceeded/></d:error>"
        let (overQuota, _) = try dav([response(201), response(403, [:], quota)])
        await assertThrows(.storageFull) { _ = try await overQuota.writeBytes("a", Data("x".utf8)) }
    }

    // MARK: Row 2: rate limit after retries → Transport

    func testErrorMappingRow2_rateLimitRetriedAfterRetryAfterCappedAtTenSecondsThenTransport_webDAV() async throws {
        let sleeper = RecordingSleeper()
        let (storage, transport) = try dav(Array(repeating: response(429, ["Retry-After": "30"]), count: 4), sleeper: sleeper)
        await assertThrows(.transport) { _ = try await storage.readBytes("a") }
        XCTAssertEqual(transport.sent.all.count, 4, "one try and three retries")
        XCTAssertEqual(sleeper.requests.all, [10, 10, 10])
    }

    func testErrorMappingRow2_a503IsRetriedAndTheRetryCanSucceed_webDAV() async throws {
        let sleeper = RecordingSleeper()
        let (storage, _) = try dav([response(503, ["Retry-After": "0.01"]), response(200, [:], "data")], sleeper: sleeper)
        let data = try await storage.readBytes("a")
        XCTAssertEqual(data, Data("data".utf8))
        XCTAssertEqual(sleeper.requests.all, [0.01])
        let now = Date(timeIntervalSince1970: 1_445_412_475)
        XCTAssertEqual(WebDAVStatusPolicy.retryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now), 5)
        XCTAssertEqual(WebDAVStatusPolicy.retryAfter(nil), 1)
    }

    // MARK: Row 3: other 403, or 401 after one retry → AuthRevoked

    func testErrorMappingRow3_a401IsRetriedOnceThenAuthRevokedAndOther403IsAuthRevoked_webDAV() async throws {
        let (revoked, revokedTransport) = try dav([response(401), response(401)])
        await assertThrows(.authRevoked) { _ = try await revoked.readBytes("a") }
        XCTAssertEqual(revokedTransport.sent.all.count, 2)
        let (recovered, _) = try dav([response(401), response(200, [:], "ok")])
        let data = try await recovered.readBytes("a")
        XCTAssertEqual(data, Data("ok".utf8))
        let (forbidden, _) = try dav([response(403, [:], "forbidden")])
        await assertThrows(.authRevoked) { _ = try await forbidden.readBytes("a") }
    }

    func testErrorMappingRow3_permissionRefusalsAreAuthRevoked_folder() {
        XCTAssertEqual(FolderStorage.cloudError(errno: EACCES), .authRevoked)
        XCTAssertEqual(FolderStorage.cloudError(errno: EROFS), .authRevoked)
        XCTAssertEqual(FolderStorage.cloudError(CocoaError(.fileWriteNoPermission)), .authRevoked)
    }

    // MARK: Row 4: connection failure → Offline

    func testErrorMappingRow4_connectionFailuresAreOffline_webDAV() async throws {
        let (storage, _) = try dav([.failure(URLError(.cannotConnectToHost))])
        await assertThrows(.offline) { _ = try await storage.list() }
        let (lost, _) = try dav([.failure(URLError(.networkConnectionLost))])
        await assertThrows(.offline) { _ = try await lost.readBytes("a") }
    }

    func testErrorMappingRow4_aMissingDriveFolderIsOffline_folder() async throws {
        let rig = try Rig.make(.folder)
        defer { rig.tearDown() }
        try FileManager.default.removeItem(at: rig.remoteRoot)
        await assertThrows(.offline) { _ = try await rig.folder.list() }
        await assertThrows(.offline) { _ = try await rig.folder.writeBytes("a", Data()) }
        XCTAssertEqual(FolderStorage.cloudError(errno: ENOTCONN), .offline)
    }

    // MARK: Row 5: read or download of an absent path → NotFound

    func testErrorMappingRow5_readOrDownloadOfAnAbsentPathIsNotFound_folder() async throws {
        let rig = try Rig.make(.folder)
        defer { rig.tearDown() }
        await assertThrows(.notFound) { _ = try await rig.folder.readBytes("absent") }
        await assertThrows(.notFound) {
            try await rig.folder.downloadFile("absent", to: rig.localRoot.appendingPathComponent("x"))
        }
        try await rig.folder.delete("absent")
    }

    func testErrorMappingRow5_a404OnReadIsNotFoundAndOnDeleteSucceeds_webDAV() async throws {
        let (storage, _) = try dav([response(404), response(404)])
        await assertThrows(.notFound) { _ = try await storage.readBytes("a") }
        try await storage.delete("a")
    }

    // MARK: Rows 6 and 7: service unavailable → NotAvailable, consent refused → NeedsConsent

    func testErrorMappingRow6_anUnavailableServiceIsNotAvailable() async throws {
        try await forEachBackend { rig in
            let found = try await rig.backUp([("a", "1")])
            let restorer = try rig.restorer()
            _ = try await restorer.start(rig.plan(found))
            rig.availability.set(.noAccount)
            let resumed = try await restorer.resume()
            XCTAssertEqual(resumed, .failed(.notAvailable))
            if let faults = rig.faults {
                rig.availability.set(.available)
                faults.inject(CloudError.notAvailable, on: .list)
                let failed = try await restorer.resume()
                XCTAssertEqual(failed, .failed(.notAvailable))
            }
        }
    }

    func testErrorMappingRow7_consentNotAcceptedIsNeedsConsent() async throws {
        try await forEachBackend { rig in
            rig.availability.set(.needsConsent)
            let outcome = try await rig.engine().sync(snapshot([("a", "1")]))
            XCTAssertEqual(outcome, .unavailable(.needsConsent))
            let probe = await (try rig.engine()).probe()
            XCTAssertEqual(probe, .unavailable(.needsConsent))
            if let faults = rig.faults {
                rig.availability.set(.available)
                faults.inject(CloudError.needsConsent, on: .list)
                let failed = await (try rig.engine()).probe()
                XCTAssertEqual(failed, .failed(.needsConsent))
            }
        }
    }

    // MARK: Row 8: everything else → Transport

    func testErrorMappingRow8_serverErrorsTimeoutsAndOtherFailuresAreTransport_webDAV() async throws {
        let (server, _) = try dav([response(500)])
        await assertThrows(.transport) { _ = try await server.readBytes("a") }
        let (timeout, _) = try dav([.failure(URLError(.timedOut))])
        await assertThrows(.transport) { _ = try await timeout.readBytes("a") }
        let (garbage, _) = try dav([response(207, [:], "<not xml")])
        await assertThrows(.transport) { _ = try await garbage.list() }
    }

    func testErrorMappingRow8_otherFileSystemFailuresAreTransport_folder() {
        XCTAssertEqual(FolderStorage.cloudError(errno: EIO), .transport)
        XCTAssertEqual(FolderStorage.cloudError(CocoaError(.fileReadCorruptFile)), .transport)
    }

    // MARK: Every CloudError through the engine

    func testEveryCloudErrorReachesTheCallerUnchanged_faultInjecting() async throws {
        for error in CloudError.allCases {
            try await forEachBackend([.faultInjecting]) { rig in
                let faults = try XCTUnwrap(rig.faults)
                let found = try await rig.backUp([("a", "1")])
                faults.inject(error, on: .writeBytes)
                await assertThrows(error) { _ = try await rig.engine().sync(snapshot([("a", "2")])) }
                let retried = syncedReport(try await rig.engine().sync(snapshot([("a", "2")])))
                XCTAssertEqual(retried.uploaded, ["a", markerPath], "\(error): the next run completes the upload")
                faults.inject(error, on: .list)
                let probe = await (try rig.engine()).probe()
                XCTAssertEqual(probe, .failed(error))
                faults.inject(error, on: .downloadFile)
                let restore = try await rig.restorer().start(rig.plan(found))
                XCTAssertEqual(restore, .failed(.cloud(error)))
                XCTAssertEqual(error.description.contains(error.code), true)
            }
        }
    }
}
