import Foundation
import KernelBench
import SyncEnvelope
import SyncKernel

/// The laptop's gate rebuilt in this process, for the in-memory diagnostic beside the device
/// figures of `synckernel bench-flood`: what `EnvelopeGate.open` alone costs per envelope.
///
/// Invariant: it holds the laptop's keys, roster and its own seen set (a temporary file), in
/// which the benchmark's accepted envelope was recorded first, so copies of it drop as replayed.
final class BenchGate {
    private let gate: EnvelopeGate
    private let directory: String

    /// A gate with the laptop's keys that has accepted `original` once.
    init(account: AccountDirectory, original: [UInt8]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("synckernel-gate-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let keys = try account.envelopeKeys(name: "laptop")
        let replay = try ReplayGuard(path: directory + "/seen", window: ReplayWindow())
        gate = EnvelopeGate(keys: keys, roster: try account.roster(for: keys), replay: replay, learnsSiblings: true)
        guard case .accepted = gate.open(original, now: Int64(Date().timeIntervalSince1970 * 1_000)) else {
            throw SyncKernelError(.keyMaterialMissing, "the gate refused the benchmark's own envelope")
        }
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Microseconds per `open` of each of `envelopes`; throws when one is not dropped as `expected`.
    func microseconds(_ envelopes: [[UInt8]], expected: EnvelopeDropReason) throws -> Double {
        let now = Int64(Date().timeIntervalSince1970 * 1_000)
        var wrong = 0
        let started = ContinuousClock.now
        for envelope in envelopes {
            if case .dropped(let reason) = gate.open(envelope, now: now), reason == expected { continue }
            wrong += 1
        }
        let elapsed = started.duration(to: .now)
        _ = gate.drainEvents()
        guard wrong == 0 else { throw SyncKernelError(.malformedFrame, "\(wrong) junk envelopes did not drop as \(expected.name)") }
        return elapsed.seconds / Double(envelopes.count) * 1e6
    }
}
