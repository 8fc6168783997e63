import FleetSimulation
import Foundation

/// `synckernel soak`: the long-run soak harness (`make soak`): seeded faulty fleets checked for
/// convergence, against an oracle and for storm trips.
///
/// Invariant: the exit code says whether every fleet passed (0), some failed (1) or the usage
/// was wrong (64); every failed fleet's seed is printed, and `--seed` replays one fleet alone.
enum SoakCommand {
    /// Runs the command.
    static func run(_ arguments: [String]) -> Int32 {
        let fleets: Int
        let firstSeed: UInt64
        let seed: UInt64?
        let json: Bool
        let directory: String?
        do {
            let options = try OptionParser(arguments, options: ["fleets", "seed", "first-seed", "directory"], flags: ["json"])
            fleets = try options.int("fleets", default: SoakHarness.defaultFleets, range: 1...1_000_000)
            firstSeed = UInt64(try options.int("first-seed", default: 1, range: 0...Int.max))
            seed = options.values["seed"] == nil ? nil : UInt64(try options.int("seed", default: 0, range: 0...Int.max))
            json = options.flags.contains("json")
            directory = options.values["directory"]
        } catch {
            FileHandle.standardError.write(Data("synckernel soak: \(error.message)\n".utf8))
            return 64
        }
        if let seed {
            let result = SoakHarness.runFleet(seed: seed, parent: directory)
            print(json ? result.json() : result.text())
            return result.passed ? 0 : 1
        }
        var done = 0
        var failed = 0
        let summary = SoakHarness.run(fleets: fleets, firstSeed: firstSeed, parent: directory) { result in
            done += 1
            if !result.passed {
                failed += 1
                let kinds = Set(result.failures.map(\.kind.rawValue)).sorted().joined(separator: ",")
                progress("fleet seed \(result.seed) FAILED (\(kinds))")
            }
            if done % 50 == 0 || done == fleets { progress("\(done)/\(fleets) fleets, \(failed) failed") }
        }
        print(json ? summary.json() : summary.text())
        return summary.failed.isEmpty ? 0 : 1
    }

    /// A progress line on standard error, so standard output holds only the summary.
    private static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
