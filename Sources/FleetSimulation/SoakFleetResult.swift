import Foundation

/// What one soak fleet did and which checks it failed.
///
/// Invariants: a function of `seed` alone, apart from `wallMillis` (the run is deterministic:
/// every choice comes from the seed, time is virtual); `trace` hashes the run's every published
/// frame (time, link, kind, size) and every device's final digest, so two runs of one seed print
/// the same trace exactly when they went the same way; `passed` is true exactly when `failures`
/// is empty.
public struct SoakFleetResult: Sendable, Hashable {
    /// The fleet's seed: `synckernel soak --seed` replays it.
    public let seed: UInt64
    /// The plan drawn from the seed, in one line.
    public let plan: String
    /// Devices in the fleet.
    public let devices: Int
    /// Acknowledged local writes (committed write transactions that changed a row).
    public let writes: Int
    /// Device crashes (each restarted from its SQLite file), those right after a write included.
    public let crashes: Int
    /// Crashes right after a write, before its digest went out.
    public let crashesAfterWrite: Int
    /// Partitions of the relay (each healed).
    public let partitions: Int
    /// Devices taken off the relay and put back.
    public let isolations: Int
    /// Frames published.
    public let frames: Int
    /// Bytes published.
    public let bytes: Int
    /// Frames lost (dropped, cut off or with no listener).
    public let lostFrames: Int
    /// Storm-guard trips (`stormSuspected` events).
    public let storms: Int
    /// Frames refused (`frameRefused` events); counted, not a failure by itself.
    public let refusals: Int
    /// Virtual milliseconds from the end of writes and faults to lasting convergence (or to the
    /// end of the settle time when the fleet did not converge).
    public let settleMillis: Int64
    /// Real milliseconds the fleet took.
    public let wallMillis: Int
    /// The run's fingerprint, in hex.
    public let trace: String
    /// The checks it failed.
    public let failures: [SoakFailure]

    /// Whether every check passed.
    public var passed: Bool { failures.isEmpty }

    /// A few lines describing the fleet, for a replay.
    public func text() -> String {
        var lines = [
            "fleet seed \(seed): \(plan)",
            "writes: \(writes)  crashes: \(crashes) (\(crashesAfterWrite) right after a write)  partitions: \(partitions)  "
                + "isolations: \(isolations)",
            "frames: \(frames)  bytes: \(bytes)  lost: \(lostFrames)  refused: \(refusals)  storm trips: \(storms)",
            "settled \(settleMillis) virtual ms after the last fault  (wall \(wallMillis) ms)",
            "trace: \(trace)",
            passed ? "result: every check passed" : "result: FAILED",
        ]
        lines += failures.map { "  \($0.kind.rawValue): \($0.detail)" }
        return lines.joined(separator: "\n")
    }

    /// The fleet as one JSON object.
    public func json() -> String {
        let data = (try? JSONSerialization.data(withJSONObject: jsonObject(), options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The fleet as a JSON-ready dictionary.
    func jsonObject() -> [String: Any] {
        [
            "seed": seed, "plan": plan, "devices": devices, "writes": writes, "crashes": crashes,
            "crashes_after_write": crashesAfterWrite, "partitions": partitions, "isolations": isolations,
            "frames": frames, "bytes": bytes, "lost_frames": lostFrames, "storms": storms, "refusals": refusals,
            "settle_ms": settleMillis, "wall_ms": wallMillis, "trace": trace, "passed": passed,
            "failures": failures.map { ["kind": $0.kind.rawValue, "detail": $0.detail] },
        ]
    }
}
