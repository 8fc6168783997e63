import SyncKernel

/// Several replicas joined by an `InProcessRelay` on one virtual clock: the deterministic harness
/// tests and the simulator drive, in the spirit of an embedded channel.
///
/// Invariants: one seed and one sequence of calls give one run, event for event; time advances
/// only through `run(until:)`; `convergedAt` is the earliest time since which every replica's
/// digest has been identical (nil while they differ). Checking it after every step compares the
/// stores' cached encoded digests, so a step that moved no leaf costs no hashing. A crashed
/// replica (`crash(_:)`) receives no frame and runs no timer until `restart(_:with:)` puts a new
/// replica of the same device in its place; its closed store's last digest still counts.
public final class Fleet {
    /// The replicas, in the order given; a restarted device's new replica takes its old index.
    public private(set) var replicas: [Replica]
    /// The indexes of the replicas that crashed and have not restarted.
    public private(set) var crashed: Set<Int> = []
    /// The relay between them.
    public private(set) var relay: InProcessRelay
    /// Virtual time in milliseconds.
    public private(set) var now: Int64 = 0
    /// Every event reported, with its time and device.
    public private(set) var events: [(time: Int64, device: DeviceID, event: ReplicaEvent)] = []
    /// Every frame published, with its time, link and kind (not its bytes).
    public private(set) var sent: [(time: Int64, from: DeviceID, to: DeviceID, kind: String)] = []
    /// Whether frames published from now on are kept with their bytes in `sentFrames` (off by
    /// default: a long simulation would keep every frame alive).
    public var recordsFrames = false
    /// Every frame published while `recordsFrames` was on, with its time, link and bytes.
    public private(set) var sentFrames: [(time: Int64, from: DeviceID, to: DeviceID, frame: [UInt8])] = []
    /// Since when all digests have matched, if they do.
    public private(set) var convergedAt: Int64?

    /// Joins `replicas` over a relay with `conditions`, every device listening.
    public init(replicas: [Replica], conditions: RelayConditions, seed: UInt64) {
        self.replicas = replicas
        relay = InProcessRelay(conditions: conditions, seed: seed)
        relay.positions = replicas.first?.positions
        for replica in replicas { relay.subscribe(replica.device) }
        updateConvergence()
    }

    /// Runs a local write on replica `index` at the current virtual time (a crashed replica's
    /// closed store refuses it with `storeClosed`).
    @discardableResult
    public func write<N: SyncNamespace>(on index: Int, _ namespace: N.Type,
                                        _ body: (NamespaceTransaction<N>) throws(SyncKernelError) -> Void) throws(SyncKernelError) -> WriteOutcome {
        let outcome = try replicas[index].write(namespace, now: now, body)
        flush(replicas[index])
        updateConvergence()
        return outcome
    }

    /// Takes replica `index` off the relay: frames to it are lost until it comes back.
    public func disconnect(_ index: Int) {
        relay.unsubscribe(replicas[index].device)
    }

    /// Puts replica `index` back on the relay and has it announce itself (a crashed replica
    /// stays off until it restarts).
    public func reconnect(_ index: Int) {
        guard !crashed.contains(index) else { return }
        relay.subscribe(replicas[index].device)
        replicas[index].announce()
        flush(replicas[index])
    }

    /// Crashes replica `index`: it leaves the relay (frames to it are lost), its timers stop and
    /// its store is closed, as when the process dies. What it committed stays in its file; a
    /// digest broadcast it had scheduled never goes out. Does nothing to a crashed replica.
    public func crash(_ index: Int) {
        guard crashed.insert(index).inserted else { return }
        relay.unsubscribe(replicas[index].device)
        replicas[index].store.close()
    }

    /// Stops replica `index` cleanly, as a device that quits: it keeps what it wrote since it and
    /// each sibling last held equal roots (`Replica.keepPushBases`), then goes as in `crash`.
    public func stop(_ index: Int) {
        guard !crashed.contains(index) else { return }
        replicas[index].keepPushBases()
        crash(index)
    }

    /// Starts crashed replica `index` again as `replacement`, a new replica of the same device
    /// (normally over a store reopened from the same file): it joins the relay and announces
    /// itself. Does nothing when `index` is not crashed or `replacement` is another device.
    public func restart(_ index: Int, with replacement: Replica) {
        guard crashed.contains(index), replacement.device == replicas[index].device else { return }
        crashed.remove(index)
        replicas[index] = replacement
        relay.subscribe(replacement.device)
        replacement.announce()
        flush(replacement)
        updateConvergence()
    }

    /// Cuts the relay into groups of replica indexes (`InProcessRelay.partition(_:)`): frames
    /// between groups are lost until `heal()`.
    public func partition(_ groups: [[Int]]) {
        relay.partition(groups.map { Set($0.map { replicas[$0].device }) })
    }

    /// Ends a partition. Nobody announces: the replicas find each other again through their own
    /// re-advertisements, as after a network split nobody noticed.
    public func heal() {
        relay.heal()
    }

    /// Has every replica announce itself, as devices do when they start; their siblings answer
    /// with digests (and learn which frames each speaks).
    public func announceAll() {
        for replica in replicas {
            replica.announce()
            flush(replica)
        }
    }

    /// Hands raw bytes to replica `index` as if `sender` had sent them (for refusal tests).
    public func inject(_ frame: [UInt8], into index: Int, from sender: DeviceID) {
        replicas[index].receive(frame, from: sender, now: now)
        flush(replicas[index])
        updateConvergence()
    }

    /// Whether every replica's digest is identical right now (their encoded digests are equal).
    public var allRootsMatch: Bool {
        guard let first = replicas.first?.store.encodedStateDigest() else { return true }
        return replicas.dropFirst().allSatisfy { $0.store.encodedStateDigest() == first }
    }

    /// Delivers frames and fires timers in order until nothing is left to do or `limit` is reached.
    /// Returns the virtual time reached.
    @discardableResult
    public func run(until limit: Int64) -> Int64 {
        while let next = nextEventTime(), next <= limit {
            now = max(now, next)
            while let delivery = relay.nextDelivery(upTo: now) {
                guard let replica = replicas.first(where: { $0.device == delivery.to }) else { continue }
                replica.receive(delivery.frame, from: delivery.from, now: now)
                flush(replica)
                updateConvergence()
            }
            for (index, replica) in replicas.enumerated() where !crashed.contains(index) {
                guard let deadline = replica.nextDeadline, deadline <= now else { continue }
                replica.tick(now: now)
                flush(replica)
                updateConvergence()
            }
        }
        if nextEventTime() != nil { now = max(now, limit) }
        return now
    }

    private func nextEventTime() -> Int64? {
        let running = replicas.indices.filter { !crashed.contains($0) }.map { replicas[$0] }
        let deadlines = running.compactMap(\.nextDeadline) + [relay.nextArrival].compactMap { $0 }
        return deadlines.min()
    }

    private func flush(_ replica: Replica) {
        for action in replica.drainActions() {
            switch action {
            case .send(let recipient, let kind, let frame):
                sent.append((now, replica.device, recipient, kind))
                if recordsFrames { sentFrames.append((now, replica.device, recipient, frame)) }
                relay.publish(from: replica.device, to: recipient, kind: kind, frame: frame, now: now)
            case .event(let event):
                events.append((now, replica.device, event))
            }
        }
    }

    private func updateConvergence() {
        if allRootsMatch {
            if convergedAt == nil { convergedAt = now }
        } else {
            convergedAt = nil
        }
    }
}
