import FleetSimulation
import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

final class FleetSimulationTests: XCTestCase {
    private func config(seed: UInt64, rows: Int = 1_500, differences: Int = 60) -> SimulationConfig {
        var config = SimulationConfig()
        config.rows = rows
        config.differences = differences
        config.seed = seed
        return config
    }

    func testAThreeDeviceFleetWithSkewedClockConvergesAndReportsItsCost() throws {
        let report = try FleetSimulation.run(config(seed: 11))
        XCTAssertTrue(report.converged, report.text())
        XCTAssertEqual(Set(report.rowsPerDevice).count, 1)
        XCTAssertGreaterThan(report.rounds, 0)
        XCTAssertEqual(report.storms, 0)
        XCTAssertEqual(report.refusals, 0)
        XCTAssertLessThan(report.virtualMillis, 10_000, report.text())
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        for key in ["converged", "rounds", "bytes", "frames", "virtual_ms"] { XCTAssertNotNil(json[key], key) }
    }

    func testTheReportCountsConflictsOpenedAndResolvedPerNamespace() throws {
        let left = try FleetSimulation.run(config(seed: 4, rows: 400, differences: 60))
        XCTAssertTrue(left.converged, left.text())
        let notebook = try XCTUnwrap(left.namespaces.first { $0.name == "notebook" })
        XCTAssertGreaterThan(notebook.conflictsOpened, 0, "the workload's concurrent edit pairs open conflicts")
        XCTAssertEqual(notebook.conflictsOpen, notebook.conflictsOpened - notebook.conflictsResolved,
                       "nobody resolves, so what opened and was not superseded by a later edit stays open")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(left.json().utf8)) as? [String: Any])
        let perNamespace = try XCTUnwrap((json["namespaces"] as? [String: Any])?["notebook"] as? [String: Any])
        XCTAssertEqual(perNamespace["conflicts_opened"] as? Int, notebook.conflictsOpened)
        XCTAssertEqual(perNamespace["conflicts_resolved"] as? Int, notebook.conflictsResolved)
        XCTAssertEqual(perNamespace["conflicts_open"] as? Int, notebook.conflictsOpen)

        var resolving = config(seed: 4, rows: 400, differences: 60)
        resolving.resolvesConflicts = true
        let resolved = try FleetSimulation.run(resolving)
        XCTAssertTrue(resolved.converged, resolved.text())
        XCTAssertEqual(resolved.storms, 0)
        let after = try XCTUnwrap(resolved.namespaces.first { $0.name == "notebook" })
        XCTAssertEqual(after.conflictsOpened, notebook.conflictsOpened, "the same run up to the resolves")
        XCTAssertEqual(after.conflictsResolved, after.conflictsOpened, "device 0 resolved every one")
        XCTAssertEqual(after.conflictsOpen, 0)
    }

    func testTheSameSeedReplaysTheSameRun() throws {
        let first = try FleetSimulation.run(config(seed: 5, rows: 400, differences: 30))
        let second = try FleetSimulation.run(config(seed: 5, rows: 400, differences: 30))
        XCTAssertEqual(first.rounds, second.rounds)
        XCTAssertEqual(first.bytes, second.bytes)
        XCTAssertEqual(first.frames, second.frames)
        XCTAssertEqual(first.virtualMillis, second.virtualMillis)
    }

    func testALossyReorderingRelayStillConverges() throws {
        var lossy = config(seed: 3, rows: 600, differences: 40)
        lossy.devices = 4
        lossy.conditions = RelayConditions(latencyMillis: 40, lossRate: 0.25, duplicationRate: 0.1, reorderJitterMillis: 100)
        let report = try FleetSimulation.run(lossy)
        XCTAssertTrue(report.converged, report.text())
        XCTAssertGreaterThan(report.links.reduce(0) { $0 + $1.lost }, 0)
    }
}

extension FleetSimulationTests {
    func testTheSketchExchangeShipsFarFewerBytesThanTheSpecToTheSameState() throws {
        var spec = config(seed: 21, rows: 6_000, differences: 40)
        spec.mode = .spec
        var sketch = spec
        sketch.mode = .sketch
        let specReport = try FleetSimulation.run(spec)
        let sketchReport = try FleetSimulation.run(sketch)
        XCTAssertTrue(specReport.converged && sketchReport.converged)
        XCTAssertEqual(specReport.finalRoots, sketchReport.finalRoots, "both protocols reach the same state")
        XCTAssertLessThan(Double(sketchReport.bytes), Double(specReport.bytes) * 0.35,
                          "sketch: \(sketchReport.bytes) bytes, spec: \(specReport.bytes) bytes")
    }

    func testASpecOnlyDeviceConvergesWithSketchDevices() throws {
        var mixed = config(seed: 23, rows: 2_000, differences: 40)
        mixed.specOnlyDevices = 1
        let report = try FleetSimulation.run(mixed)
        XCTAssertTrue(report.converged, report.text())
        XCTAssertEqual(report.storms, 0, report.text())
        var uniform = mixed
        uniform.specOnlyDevices = 0
        XCTAssertEqual(try FleetSimulation.run(uniform).finalRoots, report.finalRoots)
    }
}

extension FleetSimulationTests {
    func testEveryNamespaceConvergesInOneFleetAndReportsItsRowsAndBytes() throws {
        var mixed = config(seed: 8, rows: 1_300, differences: 104)
        mixed.namespaces = ["all"]
        let report = try FleetSimulation.run(mixed)
        XCTAssertTrue(report.converged, report.text())
        XCTAssertEqual(report.storms, 0, report.text())
        XCTAssertEqual(report.namespaces.count, 13)
        XCTAssertTrue(report.namespaces.allSatisfy { $0.rows > 0 && $0.bytes > 0 }, report.text())
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(report.json().utf8)) as? [String: Any])
        let namespaces = try XCTUnwrap(json["namespaces"] as? [String: [String: Int]])
        XCTAssertEqual(namespaces["messages"]?["rows"], report.namespaces.first { $0.name == "messages" }?.rows)
    }
}
