import SyncKernel
import XCTest

final class ErrorCodeTests: XCTestCase {
    private typealias Code = SyncKernelError.Code

    /// Every code a release has shipped, by code string: a host may have persisted any of them.
    static let shipped: [String: String] = [
        "SK101": "truncatedInput", "SK102": "nonCanonicalEncoding", "SK103": "unsupportedEncoding",
        "SK104": "limitExceeded", "SK105": "trailingBytes", "SK106": "invalidText", "SK107": "unexpectedType",
        "SK108": "missingField", "SK109": "duplicateMapKey",
        "SK201": "malformedDigest", "SK202": "schemaMismatch", "SK203": "unsupportedLayout",
        "SK204": "unknownFrameKind", "SK205": "unsupportedPayload", "SK206": "foreignAccount",
        "SK207": "unknownNamespace", "SK208": "unknownSibling", "SK209": "malformedFrame",
        "SK210": "invalidCertificate", "SK211": "snapshotHashMismatch", "SK212": "snapshotUnauthentic",
        "SK213": "malformedSnapshot", "SK214": "unsupportedTransferMessage", "SK215": "unsupportedAlgorithm",
        "SK301": "deviceIdentityNotConfigured", "SK302": "deviceIdentityAlreadyConfigured",
        "SK303": "invalidDeviceIdentity", "SK304": "counterOutOfRange", "SK305": "deviceEpochUnavailable",
        "SK306": "keyMaterialMissing", "SK307": "keyFileExposed", "SK308": "malformedKeyFile",
        "SK309": "keyFileUnavailable", "SK310": "joinRejected", "SK311": "joinTimedOut", "SK312": "approvalNotPending",
        "SK313": "conflictChanged", "SK314": "joinRefused",
        "SK401": "duplicateNamespace", "SK402": "causalMembershipMismatch", "SK403": "invalidNamespaceName",
        "SK404": "operationNotSupportedByRule", "SK405": "namespaceRefused", "SK406": "invalidDeclaration",
        "SK407": "rowRejected", "SK408": "notTheAuthor",
        "SK501": "sqlite", "SK502": "corruptBookkeeping", "SK503": "storeClosed", "SK504": "rowFormatChanged",
        "SK505": "notAStore", "SK506": "foreignDatabase", "SK507": "storeInUse", "SK508": "storageFull", "SK509": "storeReadOnly",
        "SK601": "invalidRelayConfiguration", "SK602": "invalidSubject", "SK603": "relayConnectionFailed",
        "SK604": "relayNotConnected", "SK605": "relayClosed", "SK606": "relayPayloadTooLarge",
        "SK607": "relayPublishFailed", "SK608": "blobNotFound", "SK609": "blobStoreFailed",
        "SK701": "deviceNotRunning", "SK702": "snapshotDeclined", "SK703": "snapshotSiblingFailed", "SK704": "snapshotTimedOut", "SK705": "snapshotStopped",
    ]

    /// Shipped codes whose reason can no longer occur: never reused for another reason.
    private static let retired: Set<String> = ["SK402"]

    /// Shipped codes that moved, with their strings, to another module's error type (`RelayError`,
    /// `JoinError`, `SyncDeviceError`): the kernel no longer lists them and never reuses them.
    /// `StableCodeRegistryTests` (SyncDeviceTests) checks every module's list against `shipped`.
    private static let movedOut: Set<String> = [
        "SK211", "SK212", "SK213", "SK214", "SK215", "SK608", "SK609",
        "SK310", "SK311", "SK312", "SK314", "SK601", "SK602", "SK603", "SK604", "SK605", "SK606", "SK607", "SK701", "SK702", "SK703", "SK704",
    ]

    func testEveryCodeStringIsUniqueAndWellFormed() {
        XCTAssertEqual(Set(Code.all.map(\.rawValue)).count, Code.all.count, "no code string is used twice")
        XCTAssertEqual(Set(Code.all.map(\.name)).count, Code.all.count, "no name is used twice")
        for code in Code.all {
            XCTAssertNotNil(code.rawValue.wholeMatch(of: #/SK[1-7][0-9][0-9]/#),
                            "\(code) is not SK, a layer digit and two digits")
        }
        XCTAssertEqual(Code.all.map(\.rawValue), Code.all.map(\.rawValue).sorted(), "all lists the codes in code order")
    }

    func testNoShippedCodeChangedOrDisappeared() {
        let current = Dictionary(uniqueKeysWithValues: Code.all.map { ($0.rawValue, $0.name) })
        for (rawValue, name) in Self.shipped.sorted(by: { $0.key < $1.key }) {
            if Self.retired.contains(rawValue) || Self.movedOut.contains(rawValue) {
                XCTAssertNil(current[rawValue], "\(rawValue) is retired or moved and must not be reused by the kernel")
            } else {
                XCTAssertEqual(current[rawValue], name, "\(rawValue) must keep meaning \(name)")
            }
        }
        XCTAssertEqual(Set(current.keys).subtracting(Self.shipped.keys), [], "a new code is added to the shipped list")
        XCTAssertEqual(Code.truncatedInput.rawValue, "SK101")
        XCTAssertEqual(Code.snapshotStopped, Code.all.last)
    }

    func testDescriptionsCarryTheCodeAndTheDetailOnly() {
        XCTAssertEqual(Code.malformedFrame.description, "SK209 malformedFrame")
        XCTAssertEqual(SyncKernelError(.truncatedInput).description, "SyncKernelError(SK101 truncatedInput)")
        XCTAssertEqual(SyncKernelError(.malformedFrame, "listing needs 3 fields").description,
                       "SyncKernelError(SK209 malformedFrame: listing needs 3 fields)")
        XCTAssertEqual(SyncKernelError(.sqlite), SyncKernelError(.sqlite))
        XCTAssertNotEqual(SyncKernelError(.sqlite), SyncKernelError(.storeClosed))
    }

    func testSQLiteFailuresAreSK501WithTheStatusAndAClosedStoreRefusesWithSK503() throws {
        let world = try TestWorld()
        let namespaces = try NamespaceSet([RecordNamespace.self])
        XCTAssertThrowsError(try KernelStore(path: world.directory + "/missing/store.sqlite", namespaces: namespaces)) {
            XCTAssertEqual($0 as? SyncKernelError, SyncKernelError(.sqlite, "open failed with status 14"))
        }
        let store = try world.store()
        store.close()
        XCTAssertThrowsError(try store.rows(RecordNamespace.self)) {
            XCTAssertEqual($0 as? SyncKernelError, SyncKernelError(.storeClosed))
        }
    }
}
