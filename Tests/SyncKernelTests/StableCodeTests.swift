import SyncKernel
import XCTest

/// `StableCode`'s defaults: the description, equality and hashing by code string, and the lookup
/// of a persisted code string in `all`.
final class StableCodeTests: XCTestCase {
    /// A conformer of the test's own, so the defaults are checked apart from any real list.
    private struct Probe: StableCode {
        let rawValue: String
        let name: String
        static let all = [Probe(rawValue: "PR1", name: "first"), Probe(rawValue: "PR2", name: "second")]
    }

    func testEveryKernelCodeIsFoundByItsCodeStringAndDescribedByItAndItsName() {
        for code in SyncKernelError.Code.all {
            XCTAssertEqual(SyncKernelError.Code(rawValue: code.rawValue), code)
            XCTAssertEqual(SyncKernelError.Code(rawValue: code.rawValue)?.name, code.name)
            XCTAssertEqual(code.description, "\(code.rawValue) \(code.name)")
        }
        XCTAssertEqual(SyncKernelError.Code(rawValue: "SK501"), .sqlite)
    }

    func testRejectACodeStringThisBuildDoesNotList() {
        for rawValue in ["", "SK999", "sk101", "SK101 ", "SK402", "SE101"] {
            XCTAssertNil(SyncKernelError.Code(rawValue: rawValue), rawValue)
        }
        XCTAssertNil(Probe(rawValue: "PR3"))
    }

    func testEqualityAndHashingFollowTheCodeString() {
        let renamed = Probe(rawValue: "PR1", name: "renamed")
        XCTAssertEqual(renamed, Probe.all[0])
        XCTAssertEqual(Set([renamed, Probe.all[0], Probe.all[1]]).count, 2)
        XCTAssertNotEqual(Probe.all[0], Probe.all[1])
        XCTAssertEqual(Probe(rawValue: "PR2")?.description, "PR2 second")
        XCTAssertEqual(Set(SyncKernelError.Code.all).count, SyncKernelError.Code.all.count)
    }
}
