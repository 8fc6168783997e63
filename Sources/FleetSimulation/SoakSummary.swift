import Foundation

/// The totals of a soak run and the seed of every fleet that failed.
///
/// Invariants: every count is the sum over `results`; `failed` lists exactly the fleets whose
/// checks failed, in the order they ran, each with its seed, so each one replays alone.
public struct SoakSummary: Sendable {
    /// Every fleet's result, in the order they ran.
    public let results: [SoakFleetResult]
    /// Real milliseconds the whole run took.
    public let wallMillis: Int

    /// Collects `results` run in `wallMillis`.
    public init(results: [SoakFleetResult], wallMillis: Int) {
        self.results = results
        self.wallMillis = wallMillis
    }

    /// The fleets that failed a check.
    public var failed: [SoakFleetResult] { results.filter { !$0.passed } }
    /// Devices over all fleets.
    public var devices: Int { results.reduce(0) { $0 + $1.devices } }
    /// Acknowledged writes over all fleets.
    public var writes: Int { results.reduce(0) { $0 + $1.writes } }
    /// Frames published over all fleets.
    public var frames: Int { results.reduce(0) { $0 + $1.frames } }
    /// Crashes over all fleets.
    public var crashes: Int { results.reduce(0) { $0 + $1.crashes } }
    /// Partitions over all fleets.
    public var partitions: Int { results.reduce(0) { $0 + $1.partitions } }
    /// Storm-guard trips over all fleets.
    public var storms: Int { results.reduce(0) { $0 + $1.storms } }
    /// How many fleets failed each kind of check, by kind.
    public var failuresByKind: [SoakFailure.Kind: Int] {
        var counts: [SoakFailure.Kind: Int] = [:]
        for result in results {
            for kind in Set(result.failures.map(\.kind)) { counts[kind, default: 0] += 1 }
        }
        return counts
    }

    /// The human-readable summary: totals, then one line per failed fleet with its seed.
    public func text() -> String {
        let byKind = failuresByKind
        var lines = [
            "soak: \(results.count) fleets, \(devices) devices, \(writes) writes, \(frames) frames, "
                + "\(crashes) crashes, \(partitions) partitions",
            "wall time: \(String(format: "%.1f", Double(wallMillis) / 1000)) s",
            "storm trips: \(storms)",
            "failures: \(failed.count)"
                + (byKind.isEmpty ? "" : "  (" + SoakFailure.Kind.allCases.compactMap { kind in
                    byKind[kind].map { "\(kind.rawValue) \($0)" }
                }.joined(separator: ", ") + ")"),
        ]
        for result in failed {
            lines.append("FAILED seed \(result.seed): " + result.failures.map { "\($0.kind.rawValue): \($0.detail)" }
                .joined(separator: "; "))
        }
        if !failed.isEmpty { lines.append("replay one: synckernel soak --seed SEED  (or make soak SEED=SEED)") }
        return lines.joined(separator: "\n")
    }

    /// One JSON object: the totals and every failed fleet in full.
    public func json() -> String {
        let object: [String: Any] = [
            "fleets": results.count, "devices": devices, "writes": writes, "frames": frames, "crashes": crashes,
            "partitions": partitions, "storms": storms, "wall_ms": wallMillis, "failures": failed.count,
            "failures_by_kind": Dictionary(uniqueKeysWithValues: failuresByKind.map { ($0.key.rawValue, $0.value) }),
            "failed": failed.map { $0.jsonObject() },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}
