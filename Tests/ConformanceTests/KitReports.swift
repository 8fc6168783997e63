import SyncKernel
import SyncKernelTestKit
import XCTest

extension XCTestCase {
    /// The report the kit gives for a broken `subject` at `seed`; fails the test when the subject passes.
    func kitReport<Subject: NamespaceConformance>(_ subject: Subject.Type, seed: UInt64 = 7, file: StaticString = #filePath,
                                                  line: UInt = #line) -> ConformanceReport? {
        do {
            try ConformanceSuite(subject, seed: seed).run()
            XCTFail("\(Subject.Namespace.name) passed the suite but is broken", file: file, line: line)
            return nil
        } catch let report as ConformanceReport {
            return report
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return nil
        }
    }
}
