import Foundation
import SyncDevice
import SyncEnvelope
import SyncJoin
import SyncKernel
import TestServerSupport
import XCTest

/// The join and snapshot API of `SyncDevice` refuses what it cannot do, writing nothing: a
/// decision or a snapshot request on a device that is not running, an approval id nobody waits
/// under, a join into an account directory in use or by a running device.
final class JoinAPITests: XCTestCase {
    /// Runs `body`, which must throw an error of `code` (whichever module's error type it is).
    private func expect(_ code: some StableCode, _ body: () async throws -> Void,
                        file: StaticString = #filePath, line: UInt = #line) async {
        do {
            try await body()
            XCTFail("expected \(code)", file: file, line: line)
        } catch {
            XCTAssertEqual(ErrorReport(error).code, code.rawValue, "\(error)", file: file, line: line)
        }
    }

    func testRejectDecisionsSnapshotsAndJoinsTheDeviceCannotTake() async throws {
        let world = try DeviceWorld(devices: 1)
        if try world.account.signInKeyIfPresent() == nil { try world.account.addSignInKey() }
        let credential = try world.account.signInCredential(expiresAt: SystemWallClock().millisecondsSince1970 / 1_000 + 600)
        let server = try await startNatsServer()
        let device = SyncDevice(try world.configuration(0, servers: [server.url]))
        addTeardownBlock { await device.stop() }
        let id = try XCTUnwrap(ApprovalID(parsing: "0123abcd"))
        XCTAssertNil(ApprovalID(parsing: "0123abc"), "an id is exactly 8 hex digits")
        XCTAssertNil(ApprovalID(parsing: "0123abcg"))

        let none = await device.pendingApprovals()
        XCTAssertEqual(none, [])
        await expect(SyncDeviceError.Code.deviceNotRunning) { () throws in try await device.approve(id) }
        await expect(SyncDeviceError.Code.deviceNotRunning) { () throws in try await device.reject(id) }
        await expect(SyncDeviceError.Code.deviceNotRunning) { () throws in _ = try await device.absorbSnapshot() }
        let before = try FileManager.default.contentsOfDirectory(atPath: world.account.path + "/devices").sorted()
        await expect(SyncKernelError.Code.keyFileUnavailable) { () throws in _ = try await device.join(credential) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: world.account.path + "/devices").sorted(), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.store(0)), "nothing opened before the start")

        try await device.start()
        await expect(JoinError.Code.approvalNotPending) { () throws in try await device.approve(id) }
        await expect(JoinError.Code.approvalNotPending) { () throws in try await device.reject(id) }
        await expect(SyncKernelError.Code.keyFileUnavailable) { () throws in _ = try await device.join(credential) }
        await expect(SyncDeviceError.Code.snapshotTimedOut) { () throws in _ = try await device.absorbSnapshot() }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: world.account.path + "/devices").sorted(), before)
    }
}
