import SyncKernel

/// The replica's receive path as a fuzz entry: a fresh `ReplicaHarness` (device 0, sketch mode,
/// four notes and a setting) runs the `ReplicaStep`s of the input.
///
/// Checks, after every step:
/// - a frame the replica applied nothing from (no `applied` event: refused, unanswerable, or
///   read-only such as a digest, heartbeat or request) left rows, tombstones, versions, the
///   digest and the change counters unchanged, and so did a local edit that threw and a tick;
/// - a frame `SyncFrame(decoding:account:sender:positions:)` refuses (with the harness's account, positions, its own device and the
///   sibling it came from, as the replica decodes it) produces
///   exactly one event, `frameRefused` with that error;
/// - `verifyStructures()` holds (the structures in memory, persisted and rebuilt from the rows
///   agree), and after any step that changed the store and at the end of the input the
///   maintained digest equals the one recomputed from the rows (a full scan, so not after the
///   steps that changed nothing).
enum ReplicaFuzzTarget {
    /// The step time, in milliseconds, that the first step starts from.
    static let startMillis: Int64 = 1_700_000_000_000

    static func run(_ bytes: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        let steps = ReplicaStep.parse(bytes)
        guard !steps.isEmpty else { return .refused }
        let harness: ReplicaHarness
        do {
            harness = try ReplicaHarness(device: 0, mode: .sketch, seedRows: 4)
        } catch {
            throw FuzzViolation("replica: the harness could not be set up (\(error.code))")
        }
        var now = startMillis
        var accepted = false
        var state = try snapshot(harness.store, 0)
        for (index, step) in steps.enumerated() {
            now += 250
            if try run(step, index: index, on: harness, now: &now, state: &state) { accepted = true }
        }
        try checkDigest(harness.store, steps.count)
        return accepted ? .accepted : .refused
    }

    /// Runs one step and checks it; returns whether it was accepted (a frame decoded or an edit
    /// written).
    private static func run(_ step: ReplicaStep, index: Int, on harness: ReplicaHarness, now: inout Int64,
                            state: inout StoreSnapshot) throws(FuzzViolation) -> Bool {
        let store = harness.store
        let replica = harness.replica
        var accepted = true
        var mayChange = true
        switch step {
        case .edit(let key, let value):
            do {
                try harness.edit(key: key, value: value, now: now)
            } catch {
                accepted = false
                mayChange = false
            }
            _ = replica.drainActions()
        case .tick:
            mayChange = false
            now = max(now, replica.nextDeadline ?? now)
            replica.tick(now: now)
            _ = replica.drainActions()
        case .frame(let sender, let bytes):
            let from = harness.devices[1 + sender]
            replica.receive(bytes, from: from, now: now)
            let events = replica.drainActions().compactMap { action -> ReplicaEvent? in
                if case .event(let event) = action { return event }
                return nil
            }
            mayChange = events.contains { if case .applied = $0 { return true } else { return false } }
            do {
                _ = try SyncFrame(decoding: bytes, account: ReplicaHarness.account, sender: from, positions: ReplicaHarness.positions,
                                  receiver: harness.replica.device)
            } catch {
                accepted = false
                guard events == [.frameRefused(from: from, error: error)] else {
                    throw FuzzViolation("replica step \(index): a frame the decoder refuses gave events other than one frameRefused")
                }
            }
        }
        let after = try snapshot(store, index)
        if after != state {
            guard mayChange else { throw FuzzViolation("replica step \(index): a step that applied nothing changed the store") }
            try checkDigest(store, index)
        }
        state = after
        do {
            try store.verifyStructures()
        } catch {
            throw FuzzViolation("replica step \(index): the store's structures do not verify (\(error.code))")
        }
        return accepted
    }

    /// Checks that the maintained digest equals the one recomputed from the rows.
    private static func checkDigest(_ store: KernelStore, _ index: Int) throws(FuzzViolation) {
        let agree: Bool
        do {
            agree = try store.recomputedStateDigest() == store.stateDigest()
        } catch {
            throw FuzzViolation("replica step \(index): the rows cannot be rescanned (\(error.code))")
        }
        guard agree else { throw FuzzViolation("replica step \(index): the maintained digest differs from the recomputed one") }
    }

    private static func snapshot(_ store: KernelStore, _ index: Int) throws(FuzzViolation) -> StoreSnapshot {
        do {
            return try StoreSnapshot(store)
        } catch {
            throw FuzzViolation("replica step \(index): the store cannot be read (\(error.code))")
        }
    }
}
