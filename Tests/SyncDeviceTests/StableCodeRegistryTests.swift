import SyncDevice
import XCTest

/// One `StableCode` convention across modules: every module's codes together are unique and well
/// formed, the codes that moved out of the kernel kept their strings and names, and descriptions
/// and `ErrorReport`s carry the type, the code and the fixed detail only.
final class StableCodeRegistryTests: XCTestCase {
    /// Every module's codes, as (type, code string, name).
    private static var everyCode: [(type: String, rawValue: String, name: String)] {
        SyncKernelError.Code.all.map { ("SyncKernelError", $0.rawValue, $0.name) }
            + RelayError.Code.all.map { ("RelayError", $0.rawValue, $0.name) }
            + SyncDeviceError.Code.all.map { ("SyncDeviceError", $0.rawValue, $0.name) }
            + JoinError.Code.all.map { ("JoinError", $0.rawValue, $0.name) }
            + SnapshotTransferError.Code.all.map { ("SnapshotTransferError", $0.rawValue, $0.name) }
    }

    /// The codes that moved out of the kernel, with the name each shipped under and its new type.
    private static let moved: [String: (name: String, type: String)] = [
        "SK601": ("invalidRelayConfiguration", "RelayError"), "SK602": ("invalidSubject", "RelayError"),
        "SK603": ("relayConnectionFailed", "RelayError"), "SK604": ("relayNotConnected", "RelayError"),
        "SK605": ("relayClosed", "RelayError"), "SK606": ("relayPayloadTooLarge", "RelayError"),
        "SK607": ("relayPublishFailed", "RelayError"),
        "SK211": ("snapshotHashMismatch", "SnapshotTransferError"), "SK212": ("snapshotUnauthentic", "SnapshotTransferError"),
        "SK213": ("malformedSnapshot", "SnapshotTransferError"), "SK214": ("unsupportedTransferMessage", "SnapshotTransferError"),
        "SK215": ("unsupportedAlgorithm", "SnapshotTransferError"), "SK608": ("blobNotFound", "SnapshotTransferError"),
        "SK609": ("blobStoreFailed", "SnapshotTransferError"),
        "SK310": ("joinRejected", "JoinError"), "SK311": ("joinTimedOut", "JoinError"),
        "SK312": ("approvalNotPending", "JoinError"), "SK314": ("joinRefused", "JoinError"),
        "SK701": ("deviceNotRunning", "SyncDeviceError"), "SK702": ("snapshotDeclined", "SyncDeviceError"),
        "SK703": ("snapshotSiblingFailed", "SyncDeviceError"), "SK704": ("snapshotTimedOut", "SyncDeviceError"),
    ]

    func testEveryModulesCodesAreUniqueWellFormedAndInOrder() {
        let codes = Self.everyCode
        XCTAssertEqual(Set(codes.map(\.rawValue)).count, codes.count, "no code string is used twice, in any module")
        XCTAssertEqual(Set(codes.map(\.name)).count, codes.count, "no name is used twice, in any module")
        for code in codes {
            XCTAssertNotNil(code.rawValue.wholeMatch(of: #/SK[1-7][0-9][0-9]/#), "\(code)")
        }
        for list in [SyncKernelError.Code.all.map(\.rawValue), RelayError.Code.all.map(\.rawValue), SyncDeviceError.Code.all.map(\.rawValue),
                     JoinError.Code.all.map(\.rawValue), SnapshotTransferError.Code.all.map(\.rawValue)] {
            XCTAssertEqual(list, list.sorted(), "each list is in code order")
        }
    }

    func testTheCodesThatMovedKeptTheirStringsAndNames() {
        let byString = Dictionary(uniqueKeysWithValues: Self.everyCode.map { ($0.rawValue, $0) })
        for (rawValue, shipped) in Self.moved.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(byString[rawValue]?.name, shipped.name, rawValue)
            XCTAssertEqual(byString[rawValue]?.type, shipped.type, rawValue)
            XCTAssertNil(SyncKernelError.Code(rawValue: rawValue), "the kernel no longer lists \(rawValue)")
        }
        XCTAssertEqual(RelayError.Code(rawValue: "SK604"), .relayNotConnected, "a persisted string finds its code")
        XCTAssertEqual(SyncDeviceError.Code(rawValue: "SK701"), .deviceNotRunning)
    }

    func testDescriptionsAndReportsCarryTheTypeTheCodeAndTheDetailOnly() {
        XCTAssertEqual(RelayError(.relayNotConnected, "publishing").description, "RelayError(SK604 relayNotConnected: publishing)")
        XCTAssertEqual(SyncDeviceError(.deviceNotRunning).description, "SyncDeviceError(SK701 deviceNotRunning)")
        let report = ErrorReport(SyncDeviceError(.snapshotTimedOut, "no sibling answered") as any Error)
        XCTAssertEqual(report.type, "SyncDeviceError")
        XCTAssertEqual(report.code, "SK704")
        XCTAssertEqual(report.name, "snapshotTimedOut")
        XCTAssertEqual(report.detail, "no sibling answered")
        XCTAssertEqual(report.description, "SyncDeviceError(SK704 snapshotTimedOut: no sibling answered)")
        XCTAssertTrue(report.carries(SyncDeviceError.Code.snapshotTimedOut))
        XCTAssertFalse(report.carries(SyncDeviceError.Code.snapshotDeclined))
        XCTAssertEqual(ErrorReport(SyncKernelError(.storeClosed)), ErrorReport(SyncKernelError(.storeClosed) as any Error))

        struct Foreign: Error {}
        let foreign = ErrorReport(Foreign())
        XCTAssertEqual(foreign.code, "unknown")
        XCTAssertEqual(foreign.type, "Foreign")
        XCTAssertEqual(foreign.description, "Foreign(unknown)")
    }
}
