import FleetSimulation
import Foundation
import SyncKernel
import SyncKernelSimulator
import XCTest

/// The storm guard must not cry wolf: fleets over all thirteen namespaces that converge, with
/// writes still arriving while they reconcile, over relays that lose, duplicate and reorder frames
/// at 0, 30, 80 and 150 ms, never trip it. `make test` runs a sweep of a few seconds;
/// `SYNCKERNEL_STORM_SWEEP_SEEDS=N` (`make storm-sweep`) runs N seeds per latency with four times
/// the writes over twenty seconds, and varies the fleet (four devices, a spec-only device).
final class StormSweepTests: XCTestCase {
    private static let latencies: [Int64] = [0, 30, 80, 150]

    /// One sweep's shape.
    private struct Plan {
        let seeds: [UInt64]
        let rows: Int
        let differences: Int
        let writeSpanMillis: Int64
        let varied: Bool
    }

    private func config(_ plan: Plan, seed: UInt64, latency: Int64) -> SimulationConfig {
        var config = SimulationConfig()
        config.namespaces = ["all"]
        config.rows = plan.rows
        config.differences = plan.differences
        config.writeSpanMillis = plan.writeSpanMillis
        config.seed = seed
        config.conditions = RelayConditions(latencyMillis: latency, lossRate: 0.1, duplicationRate: 0.1,
                                            reorderJitterMillis: latency / 2)
        if plan.varied {
            config.devices = seed % 5 == 4 ? 4 : 3
            config.specOnlyDevices = seed % 3 == 2 ? 1 : 0
        }
        return config
    }

    /// Runs every fleet of `plan`; prints the counts and fails naming each fleet that tripped the
    /// guard or did not converge, with the seed that replays it.
    private func run(_ plan: Plan) throws {
        var fleets = 0, trips = 0, converged = 0
        var failures: [String] = []
        for latency in Self.latencies {
            var tripsHere = 0
            for seed in plan.seeds {
                let report = try FleetSimulation.run(config(plan, seed: seed, latency: latency))
                fleets += 1
                trips += report.storms
                tripsHere += report.storms
                if report.converged { converged += 1 }
                if report.storms > 0 || !report.converged {
                    failures.append("seed \(seed), \(latency) ms, \(report.config.devices) devices: \(report.storms) trips, "
                                    + (report.converged ? "converged" : "NOT converged"))
                }
            }
            print("storm sweep, \(latency) ms: \(plan.seeds.count) fleets, \(tripsHere) trips")
        }
        print("storm sweep: \(fleets) fleets (\(plan.seeds.count) seeds x \(Self.latencies.count) latencies, all namespaces, "
              + "\(plan.differences) writes over \(plan.writeSpanMillis) ms, 10% loss, 10% duplication): "
              + "\(trips) trips, \(converged) converged")
        XCTAssertEqual(failures, [], "fleets that converge must not trip the storm guard")
    }

    func testConvergingFleetsWithWritesArrivingNeverTripTheGuard() throws {
        let environment = ProcessInfo.processInfo.environment
        if let count = environment["SYNCKERNEL_STORM_SWEEP_SEEDS"].flatMap(Int.init), count > 0 {
            let first = environment["SYNCKERNEL_STORM_SWEEP_FIRST_SEED"].flatMap(UInt64.init) ?? 1
            try run(Plan(seeds: (0..<UInt64(count)).map { first + $0 }, rows: 260, differences: 400,
                         writeSpanMillis: 20_000, varied: true))
        } else {
            try run(Plan(seeds: [1, 2], rows: 130, differences: 104, writeSpanMillis: 5_000, varied: false))
        }
    }
}
