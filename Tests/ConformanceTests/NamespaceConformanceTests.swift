import Foundation
import SyncKernelTestKit
import XCTest

/// Runs the storm-conformance kit over every namespace in this repository.
final class NamespaceConformanceTests: XCTestCase {
    /// Seeds to run: one by default; `SYNCKERNEL_CONFORMANCE_SEEDS=N` (see `make conformance-soak`) runs N,
    /// and `SYNCKERNEL_CONFORMANCE_SEED=S` replays the one seed a failure printed.
    private var seeds: [UInt64] {
        let environment = ProcessInfo.processInfo.environment
        if let only = environment["SYNCKERNEL_CONFORMANCE_SEED"].flatMap(UInt64.init) { return [only] }
        let count = environment["SYNCKERNEL_CONFORMANCE_SEEDS"].flatMap(UInt64.init) ?? 1
        return (0..<max(count, 1)).map { 20_261_129 + $0 }
    }

    private func conform<Subject: NamespaceConformance>(_ subject: Subject.Type, file: StaticString = #filePath, line: UInt = #line) {
        let clock = ContinuousClock()
        for seed in seeds {
            let elapsed = clock.measure {
                do {
                    try ConformanceSuite(subject, seed: seed).run()
                } catch {
                    XCTFail("\(error)", file: file, line: line)
                }
            }
            print("conformance \(Subject.Namespace.name) seed \(seed): \(elapsed)")
        }
    }

    func testNotebookConforms() { conform(NotebookSubject.self) }
    func testMessagesConforms() { conform(MessagesSubject.self) }
    func testMemoryConforms() { conform(MemorySubject.self) }
    func testContactsConforms() { conform(ContactsSubject.self) }
    func testPeerDevicesConforms() { conform(PeerDevicesSubject.self) }
    func testSettingsConforms() { conform(SettingsSubject.self) }
    func testSagaConforms() { conform(SagaSubject.self) }
    func testPlansConforms() { conform(PlansSubject.self) }
    func testFileIndexConforms() { conform(FileIndexSubject.self) }
    func testKTIdentityLedgerConforms() { conform(KTIdentityLedgerSubject.self) }
    func testBlocksConforms() { conform(BlocksSubject.self) }
    func testPostsConforms() { conform(PostsSubject.self) }
    func testAgentConversationsConforms() { conform(AgentConversationsSubject.self) }
}
