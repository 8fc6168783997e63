import SyncKernelTestKit
import XCTest

/// The kit must catch each deliberately broken namespace, and its report must name the cause.
final class BrokenNamespaceTests: XCTestCase {
    private func failure<Subject: NamespaceConformance>(_ subject: Subject.Type, file: StaticString = #filePath,
                                                        line: UInt = #line) -> ConformanceFailure? {
        do {
            try ConformanceSuite(subject, seed: 7).run()
            XCTFail("\(Subject.Namespace.name) passed the suite but is broken", file: file, line: line)
            return nil
        } catch let failure as ConformanceFailure {
            return failure
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return nil
        }
    }

    func testAHashedPerDeviceTimestampFailsNamingTheField() throws {
        let report = try XCTUnwrap(failure(HashedPerDeviceTimestampSubject.self))
        XCTAssertEqual(report.check, .receiveRewriteExcluded)
        XCTAssertEqual(report.field, "seenAt")
        XCTAssertTrue(report.description.contains("per-device field storms"), report.description)
        XCTAssertTrue(report.description.contains("seed 7"), report.description)
        XCTAssertTrue(report.description.contains("≠"), "the differing leaf items are shown:\n\(report.description)")
    }

    func testAHashedFieldTheMergeIgnoresFailsNamingTheField() throws {
        let report = try XCTUnwrap(failure(IgnoredHashedFieldSubject.self))
        XCTAssertEqual(report.check, .hashedFieldMerges)
        XCTAssertEqual(report.field, "tags")
        XCTAssertTrue(report.description.contains("never converges"), report.description)
        XCTAssertTrue(report.description.contains("replica A | replica B"), report.description)
    }

    func testANonDeterministicEncodingFails() throws {
        let report = try XCTUnwrap(failure(NonDeterministicEncodingSubject.self))
        XCTAssertEqual(report.check, .canonicalEncoding)
        XCTAssertTrue(report.description.contains("non-deterministic"), report.description)
    }

    func testAMergeThatIsNotCommutativeFails() throws {
        let report = try XCTUnwrap(failure(NonCommutativeMergeSubject.self))
        XCTAssertEqual(report.check, .mergeLaws)
        XCTAssertTrue(report.description.contains("not commutative"), report.description)
    }

    func testAnIngesterThatRemintsIdsFails() throws {
        let report = try XCTUnwrap(failure(RemintingIngesterSubject.self))
        XCTAssertEqual(report.check, .localPassIdempotent)
        XCTAssertEqual(report.field, "calendar ingester")
        XCTAssertTrue(report.description.contains("re-mints ids"), report.description)
    }

    func testAnExcludedFieldThatIsStillHashedFails() throws {
        let report = try XCTUnwrap(failure(LyingExclusionSubject.self))
        XCTAssertEqual(report.check, .excludedFieldExcluded)
        XCTAssertEqual(report.field, "tags")
    }
}
