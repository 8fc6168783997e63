import SyncKernel

/// The frames of one recorded exchange between the replica target's local harness (device 0,
/// sketch mode) and a sibling (device 1) in `peerMode`, pumped on a virtual clock until quiet,
/// then again after the sibling edits (a new note and a delete).
///
/// Invariant: deterministic for one build (fixed rows, keys and clock); `toLocal` holds, in
/// delivery order, exactly the frames the sibling sent to device 0, and `all` every frame either
/// side sent.
struct RecordedExchange {
    private(set) var toLocal: [[UInt8]] = []
    private(set) var all: [[UInt8]] = []

    /// The most pump rounds one phase runs.
    private static let maxRounds = 200

    init(peerMode: ReconcileMode) throws(SyncKernelError) {
        let local = try ReplicaHarness(device: 0, mode: .sketch, seedRows: 4)
        let peer = try ReplicaHarness(device: 1, mode: peerMode, seedRows: 4)
        var now = ReplicaFuzzTarget.startMillis
        local.replica.announce()
        peer.replica.announce()
        pump(local, peer, now: &now)
        try peer.edit(key: 7, value: 9, now: now)
        try peer.edit(key: 0x80 | 4, value: 0, now: now)
        pump(local, peer, now: &now)
    }

    /// Delivers frames between the two until neither sends nor has a deadline within a minute.
    private mutating func pump(_ local: ReplicaHarness, _ peer: ReplicaHarness, now: inout Int64) {
        for _ in 0..<Self.maxRounds {
            var toPeer: [[UInt8]] = []
            var toLocalNow: [[UInt8]] = []
            for action in local.replica.drainActions() {
                guard case .send(let to, _, let frame) = action else { continue }
                all.append(frame)
                if to == peer.replica.device { toPeer.append(frame) }
            }
            for action in peer.replica.drainActions() {
                guard case .send(let to, _, let frame) = action else { continue }
                all.append(frame)
                if to == local.replica.device { toLocalNow.append(frame) }
            }
            if toPeer.isEmpty, toLocalNow.isEmpty {
                let deadlines = [local.replica.nextDeadline, peer.replica.nextDeadline].compactMap { $0 }
                guard let next = deadlines.min(), next <= now + 60_000 else { return }
                now = max(now, next)
                local.replica.tick(now: now)
                peer.replica.tick(now: now)
                continue
            }
            now += 30
            toLocal += toLocalNow
            for frame in toLocalNow { local.replica.receive(frame, from: peer.replica.device, now: now) }
            for frame in toPeer { peer.replica.receive(frame, from: local.replica.device, now: now) }
        }
    }
}
