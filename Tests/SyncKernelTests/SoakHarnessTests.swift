@testable import FleetSimulation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// The short soak inside `make test`: a few seeded fleets through the same harness as `make soak`,
/// its replay, and the oracle check it stands on.
final class SoakHarnessTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    func testSeededSoakFleetsConvergeMatchTheOracleAndTripNoStorm() {
        let summary = SoakHarness.run(fleets: 3, firstSeed: 1)
        print(summary.text())
        XCTAssertEqual(summary.results.count, 3)
        for result in summary.results {
            XCTAssertTrue(result.passed, result.text())
            XCTAssertGreaterThan(result.writes, 0, result.text())
            XCTAssertGreaterThanOrEqual(result.devices, 3)
            XCTAssertLessThanOrEqual(result.devices, 7)
        }
        XCTAssertGreaterThan(summary.partitions, 0, summary.text())
        XCTAssertGreaterThan(summary.crashes, 0, summary.text())
        XCTAssertGreaterThan(summary.results.reduce(0) { $0 + $1.crashesAfterWrite }, 0, "a crash between a write and its sync")
        XCTAssertGreaterThan(summary.results.reduce(0) { $0 + $1.lostFrames }, 0, "the relay lost frames")
    }

    func testASoakFleetReplaysBitForBit() {
        let first = SoakHarness.runFleet(seed: 2)
        let second = SoakHarness.runFleet(seed: 2)
        XCTAssertFalse(first.trace.isEmpty)
        XCTAssertEqual(first.trace, second.trace)
        XCTAssertEqual(first.plan, second.plan)
        XCTAssertEqual([first.writes, first.crashes, first.partitions, first.isolations, first.frames, first.bytes],
                       [second.writes, second.crashes, second.partitions, second.isolations, second.frames, second.bytes])
        XCTAssertEqual(first.failures, second.failures)
    }

    func testTheSoakPlanStaysInsideItsBounds() {
        for seed in UInt64(0)..<200 {
            var random = SeededGenerator(seed: seed)
            let plan = SoakPlan(seed: seed, random: &random)
            XCTAssertTrue((3...7).contains(plan.devices))
            XCTAssertEqual(plan.skewSeconds.count, plan.devices)
            XCTAssertTrue(plan.skewSeconds.allSatisfy { abs($0) <= SoakPlan.maxSkewSeconds })
            XCTAssertTrue((0...0.3).contains(plan.conditions.lossRate))
            XCTAssertTrue((20_000...60_000).contains(plan.activeMillis))
        }
    }

    func testTheOracleNamesALostWriteAnUndoneDeleteAnUnexpectedRowAndAnotherVersion() throws {
        let world = try TestWorld()
        let oracle = try SoakOracle(path: world.path(), namespaces: NamespaceSet([RecordNamespace.self]),
                                    device: TestWorld.device(9), entropy: .seeded(9))
        let writer = try world.store(device: 0)
        func write(_ body: (NamespaceTransaction<RecordNamespace>) throws(SyncKernelError) -> Void) throws {
            let before = try SoakSnapshot(writer, namespace: RecordNamespace.name)
            try writer.write(RecordNamespace.self, body)
            XCTAssertTrue(try oracle.merge(writeOn: writer, before: before))
        }
        let kept = Row(id: "kept", value: "v1", updatedAt: 1)
        let gone = Row(id: "gone", value: "x", updatedAt: 1)
        try write { tx throws(SyncKernelError) in try tx.save(kept) }
        try write { tx throws(SyncKernelError) in try tx.save(gone) }
        try write { tx throws(SyncKernelError) in try tx.delete(key: RecordNamespace.key(of: gone)) }
        XCTAssertEqual(try oracle.mismatches(writer, device: 0), [], "the writer holds what the oracle merged")
        XCTAssertEqual(oracle.writesMerged, 3)

        let empty = try world.store(device: 1)
        XCTAssertEqual(try oracle.mismatches(empty, device: 1).map(\.kind), [.writeLost])

        let wrong = try world.store(device: 2)
        try wrong.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "kept", value: "v0", updatedAt: 1))
            try tx.save(gone)
            try tx.save(Row(id: "never", value: "?", updatedAt: 1))
        }
        let kinds = try oracle.mismatches(wrong, device: 2).map(\.kind)
        XCTAssertEqual(kinds, [.deleteUndone, .unexpectedRow, .versionDiffers])
    }

    func testTheOracleTakesOnlyWhatAWriteChangedNeverAMergeTheWriterMade() throws {
        let world = try TestWorld()
        let oracle = try SoakOracle(path: world.path(), namespaces: NamespaceSet([RecordNamespace.self]),
                                    device: TestWorld.device(9), entropy: .seeded(9))
        let writer = try world.store(device: 0)
        let peer = try world.store(device: 1)
        try peer.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "peer", value: "p", updatedAt: 1)) }
        for response in try peer.respond(toKeys: [RecordNamespace.key(of: Row(id: "peer", value: "", updatedAt: 0))],
                                         namespace: RecordNamespace.name) {
            try writer.apply(response)
        }
        let unchanged = try SoakSnapshot(writer, namespace: RecordNamespace.name)
        try writer.write(RecordNamespace.self) { _ throws(SyncKernelError) in }
        XCTAssertFalse(try oracle.merge(writeOn: writer, before: unchanged), "a write that changed nothing merges nothing")

        let before = try SoakSnapshot(writer, namespace: RecordNamespace.name)
        try writer.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(Row(id: "own", value: "o", updatedAt: 1)) }
        XCTAssertTrue(try oracle.merge(writeOn: writer, before: before))
        XCTAssertEqual(try oracle.store.rows(RecordNamespace.self).map(\.id), ["own"],
                       "the row the writer merged from its peer never reaches the oracle")
        XCTAssertEqual(try oracle.mismatches(writer, device: 0).map(\.kind), [.unexpectedRow])
    }
}
