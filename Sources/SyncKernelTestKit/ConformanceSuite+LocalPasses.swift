import Foundation
import SyncKernel

extension ConformanceSuite {
    /// Local passes are idempotent, agree across devices and resurrect nothing.
    ///
    /// Each pass runs twice in a row on one store (the second run must move nothing: no
    /// re-minted ids, no rewritten synced rows), then on three devices over one source, synced
    /// both ways after each round: the devices must converge on exactly the rows one device makes
    /// from that source (no per-device keys, no duplicates), a further round anywhere must move
    /// nothing, and (for a causal namespace) a synced row the pass made and a device then deleted,
    /// once every device has seen every device's version of it, must stay deleted after every
    /// device runs the pass again.
    public func checkLocalPasses() throws {
        let harness = try Harness()
        let clock = Date(timeIntervalSince1970: 1_800_000_000)
        for pass in Subject.localPasses {
            let store = try harness.store(device: 0)
            try run(pass, on: store, clock)
            let first = store.stateDigest()
            try run(pass, on: store, clock)
            guard store.stateDigest() == first else {
                throw failure(.localPassIdempotent, field: pass.name,
                              "running the pass again over the same source moved the digest: it re-mints ids or rewrites synced rows; derive its rows per device (a .deviceDerived marker) or key them by their source")
            }
            let devices = try (0..<3).map { try harness.store(device: $0 + 1) }
            for round in 0..<2 {
                for device in devices { try run(pass, on: device, clock.addingTimeInterval(TimeInterval(round))) }
                try syncAll(devices, harness)
            }
            let settled = devices.map { $0.stateDigest() }
            let alone = try harness.store(device: 9)
            for round in 0..<2 { try run(pass, on: alone, clock.addingTimeInterval(TimeInterval(round))) }
            guard Set(settled).count == 1, settled.first == alone.stateDigest() else {
                throw failure(.localPassIdempotent, field: pass.name,
                              "three devices running the pass over one source did not end with the rows one device makes from it: the same source must give the same rows (keys and content) on every device, or duplicates pile up")
            }
            for device in devices { try run(pass, on: device, clock.addingTimeInterval(1)) }
            try syncAll(devices, harness)
            guard devices.map({ $0.stateDigest() }) == settled else {
                throw failure(.localPassIdempotent, field: pass.name,
                              "running the pass again on every device after they converged moved the digest")
            }
            guard isCausal, let victim = try devices[0].leaves(namespace: Namespace.name).first?.key else { continue }
            try exchangeEverything(devices, harness)
            try devices[0].write(Namespace.self) { tx throws(SyncKernelError) in try tx.delete(key: victim) }
            try syncAll(devices, harness)
            for device in devices { try run(pass, on: device, clock.addingTimeInterval(2)) }
            try syncAll(devices, harness)
            guard try devices.allSatisfy({ try $0.row(Namespace.self, key: victim) == nil }) else {
                throw failure(.localPassIdempotent, field: pass.name,
                              "a synced row the pass made came back after a device deleted it: the pass must not re-create a row this account deleted (check NamespaceTransaction.isDeleted)")
            }
        }
    }

    func run(_ pass: LocalPass<Namespace>, on store: KernelStore, _ clock: Date) throws {
        let refusal: SyncKernelError? = Self.refusal { () throws(SyncKernelError) in
            try store.write(Namespace.self) { tx throws(SyncKernelError) in
                try Harness.rethrowing { try pass.run(tx, clock) }
            }
        }
        guard let refusal else { return }
        guard refusal.code == .operationNotSupportedByRule else { throw refusal }
        throw failure(.localPassIdempotent, field: pass.name,
                      "the pass was refused by the kernel (\(refusal)): it edits an insert-if-absent row in place or turns a synced row device-derived")
    }

    /// The error `body` throws, if any.
    private static func refusal(_ body: () throws(SyncKernelError) -> Void) -> SyncKernelError? {
        do {
            try body()
            return nil
        } catch {
            return error
        }
    }

    /// Every device takes every other's whole namespace, vectors included: devices whose rows
    /// are equal never reconcile (equal roots), so their vectors stay apart until they do.
    private func exchangeEverything(_ stores: [KernelStore], _ harness: Harness) throws {
        for puller in stores {
            for responder in stores where responder !== puller {
                if let everything = try harness.everything(responder) { try puller.apply(everything) }
            }
        }
    }

    private func syncAll(_ stores: [KernelStore], _ harness: Harness) throws {
        for _ in 0..<2 {
            for puller in stores {
                for responder in stores where responder !== puller { try harness.pull(into: puller, from: responder) }
            }
        }
    }
}
