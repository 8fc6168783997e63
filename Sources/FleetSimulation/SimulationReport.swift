import Foundation

/// What a simulated run measured.
///
/// Invariant: `converged` is true exactly when every device's digest matched at the end of the
/// run; `virtualMillis` is then the virtual time since the first difference at which they
/// started matching for good (after device 0's resolves, when it resolves conflicts).
public struct SimulationReport: Sendable {
    /// Traffic on one directed link.
    public struct Link: Sendable {
        /// Sender index.
        public let from: Int
        /// Recipient index.
        public let to: Int
        /// Frames published.
        public let frames: Int
        /// Bytes published.
        public let bytes: Int
        /// Frames lost on the way.
        public let lost: Int
    }

    /// Rows, reconcile bytes and conflicts of one namespace.
    public struct NamespaceTraffic: Sendable {
        /// The namespace.
        public let name: String
        /// Rows (leaves) on device 0 at the end.
        public let rows: Int
        /// Bytes of requests and responses about it, all links.
        public let bytes: Int
        /// Keys some device reported a conflict for (`ReplicaEvent.concurrentEdit`), each once.
        public let conflictsOpened: Int
        /// Keys some device reported resolved (`ReplicaEvent.conflictResolved`), each once.
        public let conflictsResolved: Int
        /// Keys still in conflict on device 0 at the end (`KernelStore.openConflictCounts()`).
        public let conflictsOpen: Int
    }

    /// The configuration that ran.
    public let config: SimulationConfig
    /// Whether every digest matched at the end.
    public let converged: Bool
    /// Reconcile rounds started across the fleet.
    public let rounds: Int
    /// Frames published across the fleet.
    public let frames: Int
    /// Bytes published across the fleet.
    public let bytes: Int
    /// Frames by `sync_delta` kind.
    public let framesByKind: [String: Int]
    /// Bytes sent, by frame kind.
    public let bytesByKind: [String: Int]
    /// Virtual milliseconds from the first difference to lasting convergence (or the limit).
    public let virtualMillis: Int64
    /// Traffic per directed link.
    public let links: [Link]
    /// Storm-guard trips.
    public let storms: Int
    /// Frames refused or merges failed.
    public let refusals: Int
    /// Rows per device at the end (all namespaces).
    public let rowsPerDevice: [Int]
    /// Per-namespace rows and bytes.
    public let namespaces: [NamespaceTraffic]
    /// The first device's namespace roots at the end (set-hash layout), in name order: equal
    /// across runs that reached the same state, whatever protocol they spoke.
    public let finalRoots: [[UInt8]]
    /// Real time the run took, in milliseconds.
    public let wallMillis: Int

    /// One JSON object with the keys `converged`, `rounds`, `bytes`, `frames`, `virtual_ms` and more;
    /// `namespaces` gives each namespace's `rows`, `bytes`, `conflicts_opened`,
    /// `conflicts_resolved` and `conflicts_open`.
    public func json() -> String {
        let object: [String: Any] = [
            "converged": converged, "rounds": rounds, "bytes": bytes, "frames": frames,
            "virtual_ms": virtualMillis, "devices": config.devices, "rows": config.rows,
            "diff": config.differences, "write_span_ms": config.writeSpanMillis,
            "latency_ms": config.conditions.latencyMillis, "seed": config.seed,
            "frames_by_kind": framesByKind, "bytes_by_kind": bytesByKind, "storms": storms, "refusals": refusals,
            "rows_per_device": rowsPerDevice, "wall_ms": wallMillis,
            "namespaces": Dictionary(uniqueKeysWithValues: namespaces.map {
                ($0.name, ["rows": $0.rows, "bytes": $0.bytes, "conflicts_opened": $0.conflictsOpened,
                           "conflicts_resolved": $0.conflictsResolved, "conflicts_open": $0.conflictsOpen])
            }),
            "resolves_conflicts": config.resolvesConflicts,
            "links": links.map { ["from": $0.from, "to": $0.to, "frames": $0.frames, "bytes": $0.bytes, "lost": $0.lost] },
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// A human-readable summary.
    public func text() -> String {
        var lines = [
            "fleet: \(config.devices) devices, \(config.rows) rows, \(config.differences) differences "
                + "over \(config.writeSpanMillis) ms, \(config.conditions.latencyMillis) ms latency, seed \(config.seed)",
            "converged: \(converged ? "yes, every root matches" : "NO")",
            "rounds: \(rounds)",
            "frames: \(frames)  bytes: \(bytes)",
            "virtual time to converge: \(virtualMillis) ms  (wall \(wallMillis) ms)",
            "frames by kind: " + framesByKind.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "),
        ]
        for link in links {
            lines.append("  device \(link.from) -> \(link.to): \(link.frames) frames, \(link.bytes) bytes"
                         + (link.lost > 0 ? ", \(link.lost) lost" : ""))
        }
        if namespaces.count > 1 {
            for namespace in namespaces {
                lines.append("  \(namespace.name.padding(toLength: 20, withPad: " ", startingAt: 0)) \(namespace.rows) rows, \(namespace.bytes) bytes"
                             + (namespace.conflictsOpened + namespace.conflictsResolved + namespace.conflictsOpen > 0
                                ? ", conflicts opened \(namespace.conflictsOpened), resolved \(namespace.conflictsResolved), open \(namespace.conflictsOpen)"
                                : ""))
            }
        }
        let (opened, resolved, open) = namespaces.reduce((0, 0, 0)) {
            ($0.0 + $1.conflictsOpened, $0.1 + $1.conflictsResolved, $0.2 + $1.conflictsOpen)
        }
        lines.append("conflicts: opened \(opened), resolved \(resolved), open at the end \(open)"
                     + (config.resolvesConflicts ? " (device 0 resolves)" : ""))
        if storms > 0 { lines.append("storm guard trips: \(storms)") }
        if refusals > 0 { lines.append("refused frames or failed merges: \(refusals)") }
        return lines.joined(separator: "\n")
    }
}
