import Foundation
import SyncKernel
import SyncKernelTestKit
import XCTest

/// Each blind spot of the old kit, shown by plausible namespaces with one defect each: the kit
/// must now fail them, naming the check and the field, while the controls written correctly pass.
final class BlindSpotTests: XCTestCase {
    private func assertCaught<Subject: NamespaceConformance>(_ subject: Subject.Type, by check: ConformanceFailure.Check,
                                                             field: String?, file: StaticString = #filePath, line: UInt = #line) {
        guard let report = kitReport(subject, file: file, line: line) else { return }
        guard let failure = report.failure(check) else {
            return XCTFail("\(Subject.Namespace.name) was not caught by '\(check.rawValue)':\n\(report)", file: file, line: line)
        }
        XCTAssertEqual(failure.field, field, "\(report)", file: file, line: line)
        XCTAssertTrue(failure.description.contains("seed 7"), file: file, line: line)
    }

    private func assertPasses<Subject: NamespaceConformance>(_ subject: Subject.Type, file: StaticString = #filePath, line: UInt = #line) {
        for seed: UInt64 in [7, 8, 9] {
            XCTAssertNoThrow(try ConformanceSuite(subject, seed: seed).run(), "seed \(seed)", file: file, line: line)
        }
    }

    // MARK: Injectivity

    func testALossyLeafContributionIsCaught() { assertCaught(LossyLeafSubject.self, by: .leafInjective, field: "title") }
    func testAnAbsentValueWrittenAsEmptyIsCaught() { assertCaught(AbsentIsEmptySubject.self, by: .canonicalEncoding, field: "note") }
    func testALossyNumberIsCaught() { assertCaught(LossyNumberSubject.self, by: .canonicalEncoding, field: "score") }

    // MARK: Text

    func testASetThatTreatsEquivalentTextAsEqualIsCaught() {
        assertCaught(CanonicalLabelSetSubject.self, by: .mergeLaws, field: "labels")
    }

    func testAMaximumThatTreatsEquivalentTextAsEqualIsCaught() {
        assertCaught(CanonicalMaxTitleSubject.self, by: .mergeLaws, field: "note")
    }

    // MARK: Precision

    func testAMillisecondLeafOverWholeSecondRowsIsCaught() { assertCaught(MillisecondLeafSubject.self, by: .canonicalEncoding, field: "at") }
    func testRawTimesInsideNestedValuesAreCaught() { assertCaught(NestedRawTimesSubject.self, by: .canonicalEncoding, field: "events") }
    func testARawOptionalDateIsCaught() { assertCaught(OptionalRawDueSubject.self, by: .canonicalEncoding, field: "due") }

    // MARK: Residency

    func testHashingAnOffloadableBodyDirectlyIsCaught() { assertCaught(BodyHashedDirectlySubject.self, by: .residency, field: "body") }
    func testAnOffloadThatTouchesTheStampIsCaught() { assertCaught(OffloadIsAnEditSubject.self, by: .residency, field: "updatedAt") }
    func testARestoreThatChangesTheContentIsCaught() { assertCaught(RestoreChangesContentSubject.self, by: .residency, field: "body") }
    func testACorrectOffloadPasses() { assertPasses(CorrectOffloadSubject.self) }

    // MARK: Join rules judged causally

    func testLastWriterWinsOnAWallClockIsCaught() {
        assertCaught(WallClockTitleSubject.self, by: .localEdits, field: "titleAndStamp")
    }

    func testLiveWinsOverDeletedIsCaught() { assertCaught(LiveWinsSubject.self, by: .localEdits, field: "deleted") }
    func testARegisterTitleBesideMonotoneFieldsPasses() { assertPasses(RegisterCardSubject.self) }

    // MARK: Local passes, insert-if-absent, device-derived

    func testAnImporterThatMintsPerDeviceKeysIsCaught() {
        assertCaught(PerDeviceImporterSubject.self, by: .localPassIdempotent, field: "standup importer")
    }

    func testAnImporterThatResurrectsDeletedRowsIsCaught() {
        assertCaught(ResurrectingImporterSubject.self, by: .localPassIdempotent, field: "standup importer")
    }

    func testAnImporterThatRespectsDeletesPasses() { assertPasses(CorrectImporterSubject.self) }

    func testABackfillThatEditsInsertIfAbsentRowsInPlaceIsCaught() {
        assertCaught(InPlaceBackfillSubject.self, by: .localPassIdempotent, field: "uppercase backfill")
    }

    func testDeviceDerivedReadingAHashedFieldIsCaught() {
        assertCaught(DerivedByHashedFieldSubject.self, by: .declarations, field: "tags")
    }

    // MARK: Runaway rows

    func testAJoinThatGrowsRowsFailsFastNamingTheField() {
        guard let report = kitReport(AppendingJoinSubject.self) else { return }
        XCTAssertEqual(report.failure(.mergeLaws)?.field, "tags", "\(report)")
        XCTAssertEqual(report.failures.first?.field, "tags", "\(report)")
    }

    // MARK: Reports

    func testAReportListsEveryFailureInTheOrderToFixThem() throws {
        guard let report = kitReport(LossyLeafSubject.self) else { return }
        let order = ConformanceFailure.Check.allCases
        let positions = report.failures.map { failure in order.firstIndex { $0 == failure.check } ?? -1 }
        XCTAssertEqual(positions, positions.sorted(), "\(report)")
        XCTAssertTrue(report.description.contains("fix them in this order"), "\(report)")
    }

    func testSeedsComeFromTheEnvironment() {
        XCTAssertEqual(ConformanceSuite<RegisterCardSubject>.seeds(count: 2, base: 10, environment: [:]), [10, 11])
        XCTAssertEqual(ConformanceSuite<RegisterCardSubject>.seeds(environment: ["SYNCKERNEL_CONFORMANCE_SEEDS": "3"]).count, 3)
        XCTAssertEqual(ConformanceSuite<RegisterCardSubject>.seeds(environment: ["SYNCKERNEL_CONFORMANCE_SEED": "42",
                                                                                 "SYNCKERNEL_CONFORMANCE_SEEDS": "3"]), [42])
    }
}
