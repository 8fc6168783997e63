import SyncKernel

/// A pure publish/subscribe relay in memory: it forwards to whoever is listening and stores nothing.
///
/// Invariants: no mailbox (a frame whose recipient is not subscribed when it arrives is lost);
/// while the relay is partitioned, a frame between devices on different sides is lost, whether
/// the cut is there when it is published or when it arrives; every frame is counted per
/// direction and kind, and a request or response also under the namespace its own encoding
/// names; latency, bandwidth, loss, duplication and reordering follow `RelayConditions` with the relay's own
/// seeded generator, on a `VirtualClock`.
public struct InProcessRelay: Sendable {
    /// A frame on its way.
    public struct Delivery: Sendable, Hashable {
        /// Sender.
        public let from: DeviceID
        /// Recipient.
        public let to: DeviceID
        /// The `sync_delta` kind, for accounting.
        public let kind: String
        /// The frame bytes.
        public let frame: [UInt8]
    }

    /// Per-direction accounting.
    public struct Traffic: Sendable, Hashable {
        /// Frames published.
        public var frames = 0
        /// Bytes published.
        public var bytes = 0
        /// Frames published, by kind.
        public var framesByKind: [String: Int] = [:]
        /// Bytes of frames about one namespace (requests and responses), by namespace.
        public var bytesByNamespace: [String: Int] = [:]
        /// Bytes sent, by frame kind.
        public var bytesByKind: [String: Int] = [:]
        /// Frames lost (dropped or no listener).
        public var lost = 0
    }

    /// The conditions frames travel under.
    public var conditions: RelayConditions
    /// The schema and namespace names of the devices on the relay, when known: a compact push or
    /// push_ack names its namespace by position, counted under that namespace only with them.
    package var positions: NamespacePositions?
    /// Traffic by (from, to).
    public private(set) var traffic: [Link: Traffic] = [:]
    private var subscribers: Set<DeviceID> = []
    /// The side of the partition each device named in one is on; empty while the relay is whole.
    private var sides: [DeviceID: Int] = [:]
    private var random: SeededGenerator
    private var clock = VirtualClock<Delivery>()
    /// When each link is done sending what was published on it (`RelayConditions.bytesPerMillisecond`).
    private var linkFreeAt: [Link: Int64] = [:]

    /// A directed pair of devices.
    public struct Link: Sendable, Hashable {
        /// Sender.
        public let from: DeviceID
        /// Recipient.
        public let to: DeviceID

        /// Names the link from `from` to `to`.
        public init(from: DeviceID, to: DeviceID) {
            self.from = from
            self.to = to
        }
    }

    /// Creates a relay with its own seeded randomness.
    public init(conditions: RelayConditions, seed: UInt64) {
        self.conditions = conditions
        random = SeededGenerator(seed: seed)
    }

    /// Starts delivering frames to `device`.
    public mutating func subscribe(_ device: DeviceID) {
        subscribers.insert(device)
    }

    /// Stops delivering frames to `device`; frames in flight to it will be lost.
    public mutating func unsubscribe(_ device: DeviceID) {
        subscribers.remove(device)
    }

    /// Cuts the relay into `groups`: from now until `heal()`, a frame between devices of different
    /// groups is lost. Devices named in no group are together on one more side. A device named in
    /// two groups is on the last one.
    public mutating func partition(_ groups: [Set<DeviceID>]) {
        sides = [:]
        for (side, group) in groups.enumerated() {
            for device in group { sides[device] = side }
        }
    }

    /// Joins the relay again after `partition(_:)`: every pair of listening devices reaches each other.
    public mutating func heal() {
        sides = [:]
    }

    /// Whether a frame from `from` can reach `to` across the current partition (true while whole).
    public func reaches(from: DeviceID, to: DeviceID) -> Bool {
        sides[from] == sides[to]
    }

    /// Publishes a frame at `now`; a request or response is also counted under its namespace.
    public mutating func publish(from: DeviceID, to: DeviceID, kind: String, frame: [UInt8], now: Int64) {
        let link = Link(from: from, to: to)
        traffic[link, default: Traffic()].frames += 1
        if let namespace = Self.namespace(of: frame, from: from, to: to, positions: positions) {
            traffic[link, default: Traffic()].bytesByNamespace[namespace, default: 0] += frame.count
        }
        traffic[link, default: Traffic()].bytes += frame.count
        traffic[link, default: Traffic()].framesByKind[kind, default: 0] += 1
        traffic[link, default: Traffic()].bytesByKind[kind, default: 0] += frame.count
        guard reaches(from: from, to: to), !random.chance(conditions.lossRate) else {
            traffic[link, default: Traffic()].lost += 1
            return
        }
        let copies = random.chance(conditions.duplicationRate) ? 2 : 1
        var sent = now
        if conditions.bytesPerMillisecond > 0 {
            let start = max(now, linkFreeAt[link] ?? now)
            sent = start + (Int64(frame.count) + conditions.bytesPerMillisecond - 1) / conditions.bytesPerMillisecond
            linkFreeAt[link] = sent
        }
        for _ in 0..<copies {
            let jitter = conditions.reorderJitterMillis > 0
                ? Int64(random.next() % UInt64(conditions.reorderJitterMillis + 1)) : 0
            clock.advance(to: now)
            clock.schedule(Delivery(from: from, to: to, kind: kind, frame: frame), at: sent + conditions.latencyMillis + jitter)
        }
    }

    /// The namespace a frame is about, read from its own encoding: that of a `reconcile_req`,
    /// `reconcile_resp`, `sketch_req`, `range_req`, `push` or `push_ack`, nil for any other kind or for bytes that are
    /// not a frame. `sender` and `receiver` resolve a device table's references, `positions` a push's namespace position.
    static func namespace(of frame: [UInt8], from sender: DeviceID, to receiver: DeviceID,
                          positions: NamespacePositions? = nil) -> String? {
        var budget = DecodeBudget(inputBytes: frame.count)
        let decoded: SyncFrame? = try? SyncFrame(decoding: frame, sender: sender, positions: positions, receiver: receiver, budget: &budget)
        return switch decoded?.body {
        case .reconcileRequest(let request)?: request.namespace
        case .reconcileResponse(let response)?: response.namespace
        case .sketch(let request)?: request.namespace
        case .rangeCompare(let compare)?: compare.namespace
        case .push(let response, _, _)?: response.namespace
        case .pushAck(let namespace, _, _, _)?: namespace
        case .stateDigest?, .heartbeat?, nil: nil
        }
    }

    /// The arrival time of the next frame in flight.
    public var nextArrival: Int64? { clock.nextTime }

    /// Takes the next frame that arrives at or before `now`; nil when none is due.
    /// A frame whose recipient is not listening, or is on another side of a partition, is lost
    /// and skipped.
    public mutating func nextDelivery(upTo now: Int64) -> Delivery? {
        while let time = clock.nextTime, time <= now, let delivery = clock.popNext() {
            if subscribers.contains(delivery.to), reaches(from: delivery.from, to: delivery.to) { return delivery }
            traffic[Link(from: delivery.from, to: delivery.to), default: Traffic()].lost += 1
        }
        return nil
    }
}
