import FleetSimulation
import Foundation
import SyncDevice
import SyncKernel
import SyncKernelSimulator

/// `demo-fill N` of `synckernel device`: N generated rows spread evenly over the ten namespaces
/// whose rows stand on their own (`DemoRows`), committed in transactions of at most `chunk` rows.
///
/// Invariants: the rows come from a generator seeded afresh per command (two devices fill
/// different rows); the count returned is that of committed transactions only (a stop asked for
/// between two transactions ends the command early, and the result says so).
struct DemoFiller {
    /// The largest N a command takes.
    static let maxRows = 1_000_000
    /// Rows per transaction.
    static let chunk = 2_000

    /// What a command committed.
    struct Outcome {
        /// Rows committed.
        let rows: Int
        /// Namespaces written.
        let namespaces: Int
        /// Whether a stop ended it before all N rows.
        let interrupted: Bool
    }

    /// The device written to.
    let device: SyncDevice

    /// Writes `count` rows; `stopping` is asked between transactions.
    func fill(_ count: Int, stopping: @Sendable () -> Bool) async throws -> Outcome {
        var random = SeededGenerator(seed: UInt64.random(in: .min ... .max))
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let makers = DemoRows.makers
        var written = 0
        for (index, maker) in makers.enumerated() {
            let share = count / makers.count + (index < count % makers.count ? 1 : 0)
            var done = 0
            while done < share {
                guard !stopping() else { return Outcome(rows: written, namespaces: makers.count, interrupted: true) }
                let rows = (0..<min(Self.chunk, share - done)).map { _ in maker.make(&random, now) }
                try await save(rows, into: maker.namespace)
                done += rows.count
                written += rows.count
            }
        }
        return Outcome(rows: written, namespaces: makers.count, interrupted: false)
    }

    /// Saves `rows` (each a `N.Row`) in one transaction of namespace `N`.
    private func save<N: SyncNamespace>(_ rows: [any Sendable], into namespace: N.Type) async throws {
        let typed = rows.compactMap { $0 as? N.Row }
        try await device.write(N.self) { tx throws(SyncKernelError) in
            for row in typed { try tx.save(row) }
        }
    }
}
