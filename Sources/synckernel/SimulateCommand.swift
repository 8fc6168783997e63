import FleetSimulation
import Foundation
import SyncKernel

/// `synckernel simulate`: runs a fleet over the in-process relay and prints what it measured.
enum SimulateCommand {
    /// Runs the command; returns 0 when the fleet converged, 1 when it did not, 64 on bad usage.
    static func run(_ arguments: [String]) -> Int32 {
        var config = SimulationConfig()
        let json: Bool
        do {
            let options = try OptionParser(arguments,
                                           options: ["devices", "rows", "diff", "latency-ms", "seed", "loss",
                                                     "duplicate", "jitter-ms", "skew-s", "limit-ms", "namespaces", "write-span-ms"],
                                           flags: ["json", "resolve-conflicts"])
            config.devices = try options.int("devices", default: 3, range: 2...16)
            config.rows = try options.int("rows", default: 20_000, range: 0...2_000_000)
            config.differences = try options.int("diff", default: 100, range: 0...1_000_000)
            config.conditions.latencyMillis = Int64(try options.int("latency-ms", default: 30, range: 0...60_000))
            config.seed = UInt64(try options.int("seed", default: 1, range: 0...Int.max))
            config.conditions.lossRate = try options.double("loss", default: 0, range: 0...0.9)
            config.conditions.duplicationRate = try options.double("duplicate", default: 0, range: 0...1)
            config.conditions.reorderJitterMillis = Int64(try options.int("jitter-ms", default: 0, range: 0...60_000))
            config.clockSkewSeconds = Int64(try options.int("skew-s", default: 420, range: -86_400...86_400))
            config.limitMillis = Int64(try options.int("limit-ms", default: 600_000, range: 1...86_400_000))
            config.writeSpanMillis = Int64(try options.int("write-span-ms", default: 1_000, range: 0...86_400_000))
            config.namespaces = options.values["namespaces"].map { $0.split(separator: ",").map(String.init) } ?? []
            config.resolvesConflicts = options.flags.contains("resolve-conflicts")
            json = options.flags.contains("json")
        } catch {
            FileHandle.standardError.write(Data("synckernel simulate: \(error.message)\n".utf8))
            return 64
        }
        do {
            let report = try FleetSimulation.run(config)
            print(json ? report.json() : report.text())
            return report.converged ? 0 : 1
        } catch {
            FileHandle.standardError.write(Data("synckernel simulate: \(error)\n".utf8))
            return 2
        }
    }
}
