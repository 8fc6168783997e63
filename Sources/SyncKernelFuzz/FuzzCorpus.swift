import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelTestKit

/// The seed corpora of the fuzz targets, built from the project's own encoders.
///
/// Invariant: every seed is produced by an encoder of this repository (`SyncFrame.encoded()`,
/// `rowEncoding(of:)`, `CBORValue.encoded()`, `ReplicaStep.encode`), never typed in by hand, and
/// the same build yields the same seeds in the same order (keys, dates and device keys are fixed).
/// Envelope seeds are sealed under the fixed keys of `EnvelopeFuzzWorld` with fixed frame ids and
/// ephemeral seeds, so they repeat byte for byte too. Covered: frames of every kind (`state_digest` in both layouts and with probe, `heartbeat`,
/// `reconcile_req` with buckets and with keys, `reconcile_resp` with rows, tombstones, listings,
/// wanted keys and compact vectors, `sketch_req`, `range_req` with nodes and with listings, `push` in both vector forms and
/// `push_ack`), rows
/// of every namespace, CBOR items of every major type, and replica scripts replaying recorded
/// exchanges with a sketch and with a spec sibling, with edits and ticks between the frames, and
/// envelopes from both siblings of the envelope target in each of its three input modes.
package enum FuzzCorpus {
    /// The seeds of `target`.
    package static func seeds(for target: FuzzTarget) throws(SyncKernelError) -> [[UInt8]] {
        switch target {
        case .cbor:
            let rows = rowSeeds().map { Array($0.dropFirst()) }
            return try items() + rows + [rows[0] + rows[1]] + frameSeeds()
        case .frame:
            return try frameSeeds()
        case .row:
            return rowSeeds()
        case .replica:
            return try replicaSeeds()
        case .envelope:
            return try EnvelopeFuzzTarget.seeds(frames: Array(frameSeeds().filter { $0.count <= 4_096 }.prefix(12)))
        }
    }

    /// Six rows of each namespace, each prefixed with its index in `FuzzNamespaces.all`.
    private static func rowSeeds() -> [[UInt8]] {
        var generator = FieldGenerator(seed: 0x5eed)
        var seeds: [[UInt8]] = []
        for index in FuzzNamespaces.all.indices {
            for _ in 0..<6 { seeds.append([UInt8(index)] + FuzzNamespaces.sampleRow(index, &generator)) }
        }
        return seeds
    }

    /// CBOR items of every major type, nested, at the integer and length boundaries.
    private static func items() -> [[UInt8]] {
        let boundaries: [UInt64] = [0, 23, 24, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, UInt64.max]
        var values: [CBORValue] = boundaries.map { .unsigned($0) } + boundaries.map { .negative($0) }
        values += [.bytes([]), .bytes([UInt8](repeating: 7, count: 24)), .text(""), .text("é 日本 🙂"),
                   .text(String(repeating: "x", count: 300)), .bool(true), .bool(false), .null,
                   .array([]), .array([.unsigned(1), .text("a"), .array([.null])]), .tagged(1, .unsigned(2))]
        var map = CanonicalWriter(reservingCapacity: 32)
        map.writeMap { entries in
            entries.entry("a") { $0.write(UInt64(1)) }
            entries.entry("b") { $0.writeMap { $0.entry("c") { $0.write(bytes: [1, 2]) } } }
            entries.entry(bytesKey: [0]) { $0.write(-5) }
        }
        return values.map { $0.encoded() } + [map.bytes]
    }

    /// Every frame of the recorded exchanges (both directions) and the frames built directly.
    private static func frameSeeds() throws(SyncKernelError) -> [[UInt8]] {
        var frames = try RecordedExchange(peerMode: .sketch).all + RecordedExchange(peerMode: .spec).all + directFrames()
        var seen: Set<[UInt8]> = []
        frames = frames.filter { seen.insert($0).inserted }
        return frames
    }

    /// Frames of every kind built from a sibling's store (device 1) against the local one's (device 0).
    private static func directFrames() throws(SyncKernelError) -> [[UInt8]] {
        let local = try ReplicaHarness(device: 0, mode: .sketch, seedRows: 4)
        let peer = try ReplicaHarness(device: 1, mode: .sketch, seedRows: 4)
        try peer.edit(key: 0x80 | 5, value: 0, now: ReplicaFuzzTarget.startMillis)
        let store = peer.store
        let caps = [SyncFrame.sketchCapability]
        var bodies: [(SyncFrame.Body, Bool)] = [
            (.heartbeat, false),
            (.stateDigest(digest: store.encodedStateDigest(), probe: true, changes: store.changeCounters()), false),
            (.stateDigest(digest: try store.merkleDigest().encoded(), probe: false), false),
        ]
        for name in store.namespaces.names {
            let request = try local.store.reconcileRequest(for: name)
            bodies.append((.reconcileRequest(request), false))
            bodies += try store.respond(to: request).flatMap { [(.reconcileResponse($0), false), (.reconcileResponse($0), true)] }
            bodies.append((try store.sketchStart(for: name, expectedItems: 3), false))
            let compare = try local.store.rangeCompare(name, nodes: [.root])
            bodies.append((.rangeCompare(compare), false))
            let (responses, next) = try store.answer(compare)
            bodies += responses.map { (.reconcileResponse($0), true) }
            if let next = next.first {
                bodies.append((.rangeCompare(next), false))
                bodies += try local.store.answer(next).responses.map { (.reconcileResponse($0), false) }
            }
        }
        let keys = (0..<8).map { ReplicaHarness.noteID($0) }
        bodies.append((.reconcileRequest(ReconcileRequest(namespace: NotebookNamespace.name, buckets: [], keys: keys)), false))
        bodies += try store.respond(toKeys: keys, namespace: NotebookNamespace.name, isFinal: true)
            .flatMap { [(.reconcileResponse($0), false), (.reconcileResponse($0), true)] }
        if let position = store.namespaces.names.firstIndex(of: NotebookNamespace.name) {
            let root = store.stateDigest().roots[position]
            let change = store.changeCounters()[position]
            bodies += try store.respond(toKeys: keys, namespace: NotebookNamespace.name)
                .flatMap { [(.push($0, root: root, change: change), false), (.push($0, root: root, change: change), true)] }
            bodies.append((.pushAck(namespace: NotebookNamespace.name, answer: .differs(pushChange: change, root: root), change: change, following: true), false))
            bodies.append((.pushAck(namespace: NotebookNamespace.name, answer: .matched(pushChange: change), change: change, following: false),
                           false))
        }
        return bodies.map { body, compact in
            SyncFrame(account: ReplicaHarness.account, schema: store.namespaces.schema, body: body, capabilities: caps,
                      compactVectors: compact).encoded()
        }
    }

    /// Replica scripts: the frames a sketch and a spec sibling sent in a recorded exchange, the
    /// same with edits and ticks between them, the direct frames from both siblings, and edits alone.
    private static func replicaSeeds() throws(SyncKernelError) -> [[UInt8]] {
        var scripts: [[ReplicaStep]] = []
        for mode in [ReconcileMode.sketch, .spec] {
            let frames = try RecordedExchange(peerMode: mode).toLocal
            scripts.append(frames.map { .frame(sender: 0, bytes: $0) })
            scripts.append(frames.enumerated().flatMap { index, frame -> [ReplicaStep] in
                [.frame(sender: 0, bytes: frame), .edit(key: UInt8(truncatingIfNeeded: index * 37), value: UInt8(index)), .tick]
            })
        }
        let direct = try directFrames()
        for start in stride(from: 0, to: direct.count, by: 8) {
            scripts.append(direct[start..<min(direct.count, start + 8)].enumerated().map { .frame(sender: $0.offset & 1, bytes: $0.element) })
        }
        scripts.append((0..<16).flatMap { index -> [ReplicaStep] in
            [.edit(key: UInt8(truncatingIfNeeded: index * 29 + 3), value: UInt8(index)), .tick]
        })
        return scripts.map(ReplicaStep.encode)
    }
}
