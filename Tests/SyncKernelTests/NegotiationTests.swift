import SyncKernel
import SyncKernelSimulator
import XCTest

/// Per-peer negotiation between the two reconcile modes: a `.spec` replica behaves as a build
/// that knows only the spec's frames (it never announces the sketch capability, never sends a
/// set-hash digest or a sketch frame, refuses both), a `.sketch` replica opens with the spec's
/// digest and switches to set-hash digests and the sketch exchange only once the sibling has
/// shown it speaks them, and fleets of any mix reach the state an all-spec fleet reaches.
final class NegotiationTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    /// The capabilities a sketch replica of this build announces, in the order a frame lists them.
    private let announced = [SyncFrame.compactCapability, SyncFrame.leanCapability, SyncFrame.pushCapability, SyncFrame.sketchCapability,
                             SyncFrame.wideCapability]

    /// One frame a fleet published, decoded.
    private struct Sent {
        let index: Int
        let time: Int64
        let from: DeviceID
        let to: DeviceID
        let frame: SyncFrame

        var digestLayout: StateDigest.Layout? {
            guard case .stateDigest(let digest, _, _) = frame.body else { return nil }
            return StateDigest.claimedLayout(of: digest)
        }
    }

    /// Every frame `fleet` recorded, decoded (each must decode: the replicas only send valid frames).
    private func sent(_ fleet: Fleet, file: StaticString = #filePath, line: UInt = #line) throws -> [Sent] {
        try fleet.sentFrames.enumerated().map { index, record in
            var budget = DecodeBudget(inputBytes: record.frame.count)
            return Sent(index: index, time: record.time, from: record.from, to: record.to,
                        frame: try SyncFrame(decoding: record.frame, sender: record.from, positions: fleet.replicas[0].positions,
                                             receiver: record.to, budget: &budget))
        }
    }

    private func isDigest(_ sent: Sent) -> Bool {
        if case .stateDigest = sent.frame.body { return true }
        return false
    }

    /// The failures a replica reported: refused frames and failed merges, with their codes.
    private func failures(_ fleet: Fleet) -> [SyncKernelError.Code] {
        fleet.events.compactMap { record in
            switch record.event {
            case .frameRefused(_, let error), .applyFailed(_, _, let error): return error.code
            default: return nil
            }
        }
    }

    private func storms(_ fleet: Fleet) -> Int {
        fleet.events.filter { if case .stormSuspected = $0.event { return true } else { return false } }.count
    }

    /// Random saves, edits and deletes on random devices of `fleet`, the loop running between them.
    private func randomWrites(_ fleet: Fleet, devices: Int, steps: Int, keys: Int, seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for step in 0..<steps {
            fleet.run(until: Int64(step * 40))
            try fleet.randomWrite(&random, step: step, devices: devices, keys: keys, deleteChance: 0.2)
        }
    }

    func testASpecReplicaSendsOnlySpecFramesYetConvergesWithASketchPeerOnPerfectAndLossyLinks() throws {
        let links = [RelayConditions(),
                     RelayConditions(latencyMillis: 20, lossRate: 0.2, duplicationRate: 0.1, reorderJitterMillis: 80)]
        for (linkIndex, conditions) in links.enumerated() {
            for specIndex in 0..<2 {
                let label = "link \(linkIndex), spec device \(specIndex)"
                let world = try TestWorld()
                var modes = [ReconcileMode](repeating: .sketch, count: 2)
                modes[specIndex] = .spec
                let fleet = try world.fleet(2, conditions: conditions, seed: UInt64(31 + linkIndex), modes: modes)
                fleet.recordsFrames = true
                fleet.announceAll()
                try randomWrites(fleet, devices: 2, steps: 80, keys: 30, seed: UInt64(100 + 10 * linkIndex + specIndex))
                fleet.run(until: 600_000)

                XCTAssertTrue(fleet.allRootsMatch, label)
                XCTAssertEqual(try fleet.replicas[0].store.rows(RecordNamespace.self),
                               try fleet.replicas[1].store.rows(RecordNamespace.self), label)
                XCTAssertFalse(try fleet.replicas[0].store.rows(RecordNamespace.self).isEmpty, label)
                XCTAssertEqual(storms(fleet), 0, label)
                XCTAssertEqual(failures(fleet), [], "\(label): neither side sent what the other refuses")

                let spec = fleet.replicas[specIndex].device
                let frames = try sent(fleet)
                let fromSpec = frames.filter { $0.from == spec }
                let toSpec = frames.filter { $0.to == spec }
                XCTAssertTrue(fromSpec.contains { $0.frame.body.kind == "reconcile_req" }, "\(label): the spec replica pulled")
                XCTAssertTrue(fromSpec.contains(where: isDigest), label)
                for frame in fromSpec {
                    XCTAssertEqual(frame.frame.capabilities, [], "\(label): frame \(frame.index) announces a capability")
                    XCTAssertFalse(frame.frame.compactHeader, "\(label): frame \(frame.index) is compact")
                    XCTAssertFalse(["sketch_req", "range_req"].contains(frame.frame.body.kind), "\(label): frame \(frame.index)")
                    if case .stateDigest(let digest, _, let changes) = frame.frame.body {
                        XCTAssertEqual(StateDigest.claimedLayout(of: digest), .merkle, "\(label): frame \(frame.index)")
                        XCTAssertEqual(changes, [], "\(label): frame \(frame.index) carries change counters")
                    }
                }
                XCTAssertTrue(toSpec.contains { $0.frame.capabilities == announced },
                              "\(label): the sketch replica did announce itself")
                for frame in toSpec {
                    XCTAssertFalse(["sketch_req", "range_req"].contains(frame.frame.body.kind), "\(label): frame \(frame.index)")
                    XCTAssertNotEqual(frame.digestLayout, .setHash, "\(label): frame \(frame.index) is a set-hash digest")
                    XCTAssertFalse(frame.frame.compactVectors, "\(label): frame \(frame.index) writes compact vectors")
                    XCTAssertFalse(frame.frame.compactHeader, "\(label): frame \(frame.index) is a compact frame")
                }
            }
        }
    }

    func testASpecReplicaRefusesSketchFramesAndSetHashDigestsAndWritesNothing() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2, modes: [.spec, .sketch])
        let (spec, peer) = (fleet.replicas[0], fleet.replicas[1])
        try spec.store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "a", value: "spec", updatedAt: 1))
            try tx.save(Row(id: "b", value: "spec", updatedAt: 1))
        }
        try peer.store.write(RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "a", value: "peer", updatedAt: 2))
            try tx.save(Row(id: "c", value: "peer", updatedAt: 2))
        }
        let digest = spec.store.stateDigest()
        let merkle = try spec.store.merkleDigest()
        let rows = try spec.store.rows(RecordNamespace.self)
        let vector = try spec.store.version(namespace: RecordNamespace.name, key: Array("a".utf8))
        let sentBefore = fleet.sent.count

        guard case .sketch(let sketch) = try peer.store.sketchStart(for: RecordNamespace.name, expectedItems: nil) else {
            return XCTFail("two items and no expectation: a sketch")
        }
        let compare = try peer.store.rangeCompare(RecordNamespace.name, nodes: PrefixNode.root.children)
        let setHashDigest = peer.store.encodedStateDigest()
        XCTAssertEqual(StateDigest.claimedLayout(of: setHashDigest), .setHash)
        let bodies: [SyncFrame.Body] = [
            .sketch(sketch),
            .rangeCompare(compare),
            .stateDigest(digest: setHashDigest, probe: true, changes: peer.store.changeCounters()),
        ]
        for body in bodies {
            let frame = SyncFrame(account: world.account, schema: peer.store.namespaces.schema, body: body,
                                  capabilities: [SyncFrame.sketchCapability])
            fleet.inject(frame.encoded(), into: 0, from: peer.device)
        }

        let refusals = fleet.events(of: 0).compactMap { event -> SyncKernelError.Code? in
            guard case .frameRefused(let from, let error) = event, from == peer.device else { return nil }
            return error.code
        }
        XCTAssertEqual(refusals, [.unknownFrameKind, .unknownFrameKind, .unsupportedLayout])
        XCTAssertEqual(fleet.events(of: 0).count, 3, "one event per refused frame and nothing else")
        XCTAssertEqual(fleet.sent.count, sentBefore, "a refused frame is not answered")
        XCTAssertEqual(spec.store.stateDigest(), digest)
        XCTAssertEqual(try spec.store.merkleDigest(), merkle)
        XCTAssertEqual(try spec.store.rows(RecordNamespace.self), rows)
        XCTAssertEqual(try spec.store.version(namespace: RecordNamespace.name, key: Array("a".utf8)), vector)
    }

    func testTwoSketchReplicasOpenWithAMerkleDigestThenUseSetHashDigestsAndSketchesAndStopAnnouncing() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        fleet.recordsFrames = true
        let latency = fleet.relay.conditions.latencyMillis
        let devices = fleet.replicas.map(\.device)
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<30 { try tx.save(Row(id: String(format: "r%02d", index), value: "v", updatedAt: 1)) }
        }
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)

        let opening = try sent(fleet)
        let firstDigest = try XCTUnwrap(opening.first(where: isDigest))
        XCTAssertEqual(firstDigest.from, devices[0])
        XCTAssertEqual(firstDigest.digestLayout, .merkle, "the sibling's capability is unknown yet")
        XCTAssertEqual(firstDigest.frame.capabilities, announced,
                       "and this replica announces its own")
        XCTAssertFalse(firstDigest.frame.compactHeader, "a frame to a sibling not yet heard from is the spec's")
        let laterDigests = opening.filter { isDigest($0) && $0.index != firstDigest.index }
        XCTAssertFalse(laterDigests.isEmpty)
        for digest in laterDigests {
            XCTAssertEqual(digest.digestLayout, .setHash, "frame \(digest.index) from \(digest.from) at \(digest.time)")
        }
        XCTAssertTrue(opening.contains { $0.frame.body.kind == "sketch_req" }, "\(opening.map(\.frame.body.kind))")

        // Each side stops announcing once the other has sent it a set-hash digest (it knows then).
        for (sender, receiver) in [(devices[0], devices[1]), (devices[1], devices[0])] {
            let learned = try XCTUnwrap(opening.first { $0.from == receiver && $0.to == sender && $0.digestLayout == .setHash })
            let announcing = opening.filter { $0.from == sender && !$0.frame.capabilities.isEmpty }
            XCTAssertFalse(announcing.isEmpty)
            for frame in announcing {
                XCTAssertLessThanOrEqual(frame.time, learned.time + latency,
                                         "frame \(frame.index) (\(frame.frame.body.kind)) still announces after the sibling knew")
            }
        }

        // A second round of concurrent edits, inserts and deletes, on siblings in step: pushes,
        // in compact frames, never a spec frame.
        let mark = fleet.sentFrames.count
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "r01", value: "edited on 0", updatedAt: 2))
            try tx.delete(key: Array("r02".utf8))
        }
        try fleet.write(on: 1, RecordNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "r03", value: "edited on 1", updatedAt: 2))
            try tx.save(Row(id: "new", value: "inserted on 1", updatedAt: 2))
        }
        fleet.run(until: fleet.now + 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        XCTAssertEqual(try fleet.replicas[0].store.row(RecordNamespace.self, key: Array("r03".utf8))?.value, "edited on 1")
        XCTAssertEqual(try fleet.replicas[1].store.row(RecordNamespace.self, key: Array("r01".utf8))?.value, "edited on 0")
        XCTAssertNil(try fleet.replicas[1].store.row(RecordNamespace.self, key: Array("r02".utf8)))
        let round = try sent(fleet).filter { $0.index >= mark }
        XCTAssertTrue(round.contains { $0.frame.body.kind == "push" }, "\(round.map(\.frame.body.kind))")
        for frame in round {
            XCTAssertEqual(frame.frame.capabilities, [], "frame \(frame.index) (\(frame.frame.body.kind))")
            XCTAssertTrue(frame.frame.compactHeader, "frame \(frame.index): both siblings read compact frames")
            XCTAssertNotEqual(frame.digestLayout, .merkle, "frame \(frame.index)")
            if case .reconcileRequest(let request) = frame.frame.body {
                XCTAssertEqual(request.buckets, [], "frame \(frame.index): no spec bucket request between sketch peers")
            }
        }
        XCTAssertEqual(failures(fleet), [])
    }

    func testHostCapabilitiesGoOutWithTheKernelsAndASiblingsAnnouncementIsReportedWhenItChanges() throws {
        let world = try TestWorld()
        let paths = [world.path(), world.path()]
        let fleet = try world.fleet(2, hostCapabilities: [["zeta-host", "alpha-host"], []], paths: paths)
        fleet.recordsFrames = true
        let devices = fleet.replicas.map(\.device)
        func reports(_ index: Int) -> [[String]] {
            fleet.events(of: index).compactMap { event in
                guard case .siblingCapabilities(let peer, let capabilities) = event else { return nil }
                XCTAssertEqual(peer, devices[1 - index])
                return capabilities
            }
        }
        try fleet.save(Row(id: "r1", value: "v", updatedAt: 1), on: 0)
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        let fromA = try sent(fleet).filter { $0.from == devices[0] && !$0.frame.capabilities.isEmpty }
        XCTAssertFalse(fromA.isEmpty)
        for frame in fromA { XCTAssertEqual(Set(frame.frame.capabilities), Set(announced + ["alpha-host", "zeta-host"])) }
        XCTAssertEqual(reports(1), [(announced + ["alpha-host", "zeta-host"]).sorted()], "once, however often it was announced")
        XCTAssertEqual(reports(0), [announced.sorted()])

        fleet.crash(0)
        let older = try Replica(device: devices[0], account: world.account, siblings: devices, store: world.store(device: nil, path: paths[0]))
        fleet.restart(0, with: older)
        try fleet.save(Row(id: "r2", value: "after going back to a build without them", updatedAt: 2), on: 0)
        fleet.run(until: fleet.now + 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        XCTAssertEqual(reports(1), [(announced + ["alpha-host", "zeta-host"]).sorted(), announced.sorted()],
                       "the sibling's host learns the restarted build no longer reads them")
    }

    func testRejectHostCapabilitiesAFrameCannotCarryOrTheKernelOwns() throws {
        let world = try TestWorld()
        let store = try world.store(device: nil)
        defer { store.close() }
        let cases: [(String, [String], SyncKernelError.Code)] = [
            ("too many", (0...Replica.maxHostCapabilities).map { "host\($0)" }, .limitExceeded),
            ("empty", [""], .invalidText),
            ("too long", [String(repeating: "x", count: Replica.maxHostCapabilityBytes + 1)], .invalidText),
            ("repeated", ["a", "a"], .invalidText),
            ("the kernel's", [SyncFrame.pushCapability], .invalidText),
        ]
        for (name, capabilities, code) in cases {
            XCTAssertThrowsError(try Replica(device: TestWorld.device(0), account: world.account, siblings: [TestWorld.device(1)],
                                             store: store, hostCapabilities: capabilities), name) {
                XCTAssertEqual(($0 as? SyncKernelError)?.code, code, name)
            }
        }
        let most = (0..<Replica.maxHostCapabilities).map { "host\($0)" }
        XCTAssertNoThrow(try Replica(device: TestWorld.device(0), account: world.account, siblings: [TestWorld.device(1)],
                                     store: store, hostCapabilities: most))
    }

    func testAnnouncingOnHeartbeatsMakesEveryDigestASetHashOne() throws {
        let world = try TestWorld()
        let fleet = try world.fleet(2)
        fleet.recordsFrames = true
        fleet.announceAll()
        fleet.run(until: 1_000)
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<20 { try tx.save(Row(id: String(format: "r%02d", index), value: "v", updatedAt: 1)) }
        }
        fleet.run(until: 30_000)
        XCTAssertTrue(fleet.allRootsMatch)
        // Edits small against what both hold: pushes or the sketch exchange, never a whole request.
        try fleet.save(Row(id: "r03", value: "edited on 0", updatedAt: 2), on: 0)
        try fleet.save(Row(id: "r17", value: "edited on 1", updatedAt: 2), on: 1)
        fleet.run(until: 60_000)
        XCTAssertTrue(fleet.allRootsMatch)
        let frames = try sent(fleet)
        let heartbeats = frames.filter { $0.frame.body == .heartbeat }
        XCTAssertEqual(heartbeats.count, 2)
        XCTAssertTrue(heartbeats.allSatisfy { $0.frame.capabilities == announced })
        let digests = frames.filter(isDigest)
        XCTAssertFalse(digests.isEmpty)
        XCTAssertTrue(digests.allSatisfy { $0.digestLayout == .setHash }, "\(digests.map { ($0.index, $0.digestLayout) })")
        XCTAssertTrue(frames.contains { $0.frame.body.kind == "push" })
        for frame in frames {
            if case .reconcileRequest(let request) = frame.frame.body {
                XCTAssertEqual(request.buckets, [], "frame \(frame.index): no spec bucket request between sketch peers")
            }
        }
    }
}

extension NegotiationTests {
    /// The digests of replica 0 after each phase, and every replica's final digest and rows.
    private struct Outcome {
        var phaseDigests: [StateDigest] = []
        var digests: [StateDigest] = []
        var rows: [[Row]] = []
        var storms = 0
        var failures: [SyncKernelError.Code] = []
    }

    /// Three devices under `modes`: a shared base written on device 0, then phases of concurrent
    /// saves, edits and deletes on every device (written before any frame moves), each phase run
    /// to quiet. The writes depend on `seed` only, never on the modes.
    private func run(modes: [ReconcileMode], seed: UInt64) throws -> Outcome {
        let world = try TestWorld()
        let fleet = try world.fleet(modes.count, seed: seed, modes: modes)
        fleet.announceAll()
        try fleet.write(on: 0, RecordNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<40 { try tx.save(Row(id: String(format: "k%02d", index), value: "base", updatedAt: 1)) }
        }
        var outcome = Outcome()
        fleet.run(until: 60_000)
        outcome.phaseDigests.append(fleet.replicas[0].store.stateDigest())
        var random = SeededGenerator(seed: seed)
        for phase in 1...3 {
            for device in modes.indices {
                try fleet.write(on: device, RecordNamespace.self) { tx throws(SyncKernelError) in
                    for op in 0..<8 {
                        let id = String(format: "k%02d", Int(random.next() % 50))
                        if random.next() % 4 == 0 {
                            try tx.delete(key: Array(id.utf8))
                        } else {
                            try tx.save(Row(id: id, value: "p\(phase)-d\(device)-\(op)", updatedAt: Int64(10 * phase + op)))
                        }
                    }
                }
            }
            fleet.run(until: fleet.now + 300_000)
            outcome.phaseDigests.append(fleet.replicas[0].store.stateDigest())
        }
        outcome.digests = fleet.replicas.map { $0.store.stateDigest() }
        outcome.rows = try fleet.replicas.map { try $0.store.rows(RecordNamespace.self) }
        outcome.storms = storms(fleet)
        outcome.failures = failures(fleet)
        return outcome
    }

    func testAMixedFleetReachesTheStateOfAnAllSketchAndAnAllSpecFleet() throws {
        for seed: UInt64 in [3, 14, 15] {
            let mixed = try run(modes: [.sketch, .sketch, .spec], seed: seed)
            let sketch = try run(modes: [.sketch, .sketch, .sketch], seed: seed)
            let spec = try run(modes: [.spec, .spec, .spec], seed: seed)
            for (name, outcome) in [("mixed", mixed), ("sketch", sketch), ("spec", spec)] {
                XCTAssertEqual(Set(outcome.digests).count, 1, "seed \(seed), \(name): every device holds one state")
                XCTAssertEqual(Set(outcome.rows).count, 1, "seed \(seed), \(name)")
                XCTAssertEqual(outcome.storms, 0, "seed \(seed), \(name)")
                XCTAssertEqual(outcome.failures, [], "seed \(seed), \(name)")
            }
            XCTAssertEqual(mixed.phaseDigests, spec.phaseDigests, "seed \(seed): phase by phase")
            XCTAssertEqual(sketch.phaseDigests, spec.phaseDigests, "seed \(seed): phase by phase")
            XCTAssertEqual(mixed.digests, spec.digests, "seed \(seed)")
            XCTAssertEqual(sketch.digests, spec.digests, "seed \(seed)")
            XCTAssertEqual(mixed.rows, spec.rows, "seed \(seed)")
            XCTAssertEqual(sketch.rows, spec.rows, "seed \(seed)")
            XCTAssertFalse(spec.rows[0].isEmpty, "seed \(seed)")
        }
    }
}

extension NegotiationTests {
    func testMixedFleetsConvergeOnALossyDuplicatingReorderingRelay() throws {
        let lossy = RelayConditions(latencyMillis: 20, lossRate: 0.2, duplicationRate: 0.1, reorderJitterMillis: 80)
        for seed: UInt64 in [1, 2, 3] {
            for modes: [ReconcileMode] in [[.sketch, .sketch, .spec], [.spec, .sketch, .spec]] {
                let label = "seed \(seed), \(modes)"
                let world = try TestWorld()
                let fleet = try world.fleet(3, conditions: lossy, seed: seed, modes: modes)
                fleet.announceAll()
                try randomWrites(fleet, devices: 3, steps: 120, keys: 50, seed: seed)
                fleet.run(until: 900_000)
                XCTAssertTrue(fleet.allRootsMatch, label)
                XCTAssertEqual(Set(try fleet.replicas.map { try $0.store.rows(RecordNamespace.self) }).count, 1, label)
                XCTAssertGreaterThan(fleet.relay.traffic.values.reduce(0) { $0 + $1.lost }, 0, "\(label): the relay did lose frames")
                XCTAssertEqual(storms(fleet), 0, label)
                XCTAssertEqual(failures(fleet), [], label)
            }
        }
    }

    /// A sibling of the build of 64-bit sketch items announces `sketch1` (with `compact1`): its
    /// sketches read differently, so this replica takes it for a spec peer. It announces
    /// `sketch2`, answers with the spec's Merkle digests and requests, and never sends a set-hash
    /// digest or a sketch; the sibling, seeing no `sketch1`, does the same, and the two converge
    /// through the spec's frames (in compact form, which both read).
    func testASiblingOfTheSketch1BuildGetsTheSpecsFramesOnly() throws {
        let world = try TestWorld()
        let (a, b) = (TestWorld.device(0), TestWorld.device(1))
        let (replica, store) = try oneRowReplica(world, a, b)
        XCTAssertEqual(SyncFrame.sketchCapability, "sketch2")
        let schema = store.namespaces.schema
        let otherRoot = StateDigest(layout: .merkle, schema: schema, namespaces: store.namespaces.names,
                                    roots: store.namespaces.names.map { _ in [UInt8](repeating: 0x33, count: 32) })
        let earlier = [SyncFrame(account: world.account, schema: schema, body: .heartbeat, capabilities: ["compact1", "sketch1"]),
                       SyncFrame(account: world.account, schema: schema, body: .stateDigest(digest: otherRoot.encoded(), probe: false),
                                 capabilities: ["compact1", "sketch1"])]
        var kinds: [String] = []
        for (step, frame) in earlier.enumerated() {
            replica.receive(frame.encoded(), from: b, now: Int64(step + 1))
            for action in replica.drainActions() {
                guard case .send(_, _, let bytes) = action else { continue }
                let answer = try SyncFrame(decoding: bytes, account: world.account, sender: a)
                kinds.append(answer.body.kind)
                if case .stateDigest(let digest, _, _) = answer.body {
                    XCTAssertEqual(StateDigest.claimedLayout(of: digest), .merkle, "step \(step): the spec's digest")
                }
                XCTAssertFalse(answer.capabilities.contains("sketch1"), "step \(step)")
                if !answer.capabilities.isEmpty { XCTAssertTrue(answer.capabilities.contains("sketch2"), "step \(step)") }
            }
        }
        XCTAssertTrue(kinds.contains("state_digest"), "\(kinds)")
        XCTAssertTrue(kinds.contains("reconcile_req"), "\(kinds): the differing namespace through the spec's request")
        XCTAssertFalse(kinds.contains("sketch_req"), "\(kinds)")
        XCTAssertFalse(kinds.contains("range_req"), "\(kinds)")
    }

    /// A sibling of an earlier sketch build (it announces `sketchCapability` only) gets the spec's frame
    /// form, set-hash digests and sketches included, never a compact one; once it announces
    /// `compact1` or sends a compact frame itself, the replica answers it in compact frames.
    func testASiblingThatNeverAnnouncedCompactFramesReceivesNoCompactFrameUntilItDoes() throws {
        let world = try TestWorld()
        let (a, b) = (TestWorld.device(0), TestWorld.device(1))
        let (replica, store) = try oneRowReplica(world, a, b)
        func sentFrames() throws -> [SyncFrame] {
            try replica.drainActions().compactMap { action in
                guard case .send(_, _, let bytes) = action else { return nil }
                return try SyncFrame(decoding: bytes, account: world.account, sender: a)
            }
        }
        let schema = store.namespaces.schema
        let otherRoot = StateDigest(layout: .setHash, schema: schema, namespaces: store.namespaces.names,
                                    roots: store.namespaces.names.map { _ in [UInt8](repeating: 0x33, count: 32) })
        let earlier = [SyncFrame(account: world.account, schema: schema, body: .heartbeat, capabilities: [SyncFrame.sketchCapability]),
                       SyncFrame(account: world.account, schema: schema,
                                 body: .stateDigest(digest: otherRoot.encoded(), probe: false, changes: [5]))]
        for (step, frame) in earlier.enumerated() {
            replica.receive(frame.encoded(), from: b, now: Int64(step + 1))
            let answers = try sentFrames()
            XCTAssertFalse(answers.isEmpty, "step \(step)")
            for answer in answers {
                XCTAssertFalse(answer.compactHeader, "step \(step): a \(answer.body.kind) in compact form to an earlier build")
            }
        }
        let compact = SyncFrame(account: world.account, schema: schema, body: .heartbeat, compactHeader: true)
        replica.receive(compact.encoded(), from: b, now: 10)
        let answers = try sentFrames()
        XCTAssertFalse(answers.isEmpty)
        for answer in answers { XCTAssertTrue(answer.compactHeader, "a \(answer.body.kind) to a sibling that writes compact frames") }
    }

    /// A sibling of the earlier sketch build announces `sketch1` (layout-2 digests, map rows
    /// against the device table): this build never counts that as the capability, so it sends it
    /// only Merkle digests and spec requests, and a layout-2 digest it receives is refused as an
    /// unknown layout, writing nothing: the two fall back to the spec's frames instead of misreading
    /// each other.
    func testASiblingOfTheEarlierSketchBuildGetsOnlySpecFramesAndItsLayoutTwoDigestIsRefused() throws {
        let world = try TestWorld()
        let (a, b) = (TestWorld.device(0), TestWorld.device(1))
        let (replica, store) = try oneRowReplica(world, a, b)
        let schema = store.namespaces.schema
        let before = try store.rows(RecordNamespace.self)
        let names = store.namespaces.names
        let layoutTwo = [UInt8]([2]) + [UInt8](repeating: 0x33, count: 32 * names.count)
        let frames = [SyncFrame(account: world.account, schema: schema, body: .heartbeat, capabilities: ["sketch1", "compact1"]),
                      SyncFrame(account: world.account, schema: schema, body: .stateDigest(digest: layoutTwo, probe: false, changes: [5])),
                      SyncFrame(account: world.account, schema: schema, body: .heartbeat, capabilities: ["sketch1", "compact1"])]
        var refusals: [SyncKernelError.Code] = []
        for (step, frame) in frames.enumerated() {
            replica.receive(frame.encoded(), from: b, now: Int64(step + 1))
            for action in replica.drainActions() {
                switch action {
                case .send(_, _, let bytes):
                    let sent = try SyncFrame(decoding: bytes, account: world.account, sender: a)
                    switch sent.body {
                    case .stateDigest(let digest, _, _):
                        XCTAssertEqual(StateDigest.claimedLayout(of: digest), .merkle, "step \(step): a Merkle digest only")
                    case .sketch, .rangeCompare:
                        XCTFail("step \(step): a \(sent.body.kind) to a sibling of the earlier sketch build")
                    default:
                        break
                    }
                    XCTAssertFalse(sent.compactVectors, "step \(step): no device table to an earlier sketch build")
                case .event(.frameRefused(_, let error)):
                    refusals.append(error.code)
                default:
                    break
                }
            }
        }
        XCTAssertEqual(refusals, [.unsupportedLayout], "the layout-2 digest, and nothing else")
        XCTAssertEqual(try store.rows(RecordNamespace.self), before)
    }

    /// A sketch replica of `device` with sibling `sibling`, holding one row, its actions drained.
    private func oneRowReplica(_ world: TestWorld, _ device: DeviceID, _ sibling: DeviceID) throws -> (Replica, KernelStore) {
        let store = try world.store(device: nil)
        let replica = try Replica(device: device, account: world.account, siblings: [device, sibling], store: store)
        try replica.write(RecordNamespace.self, now: 0) { tx throws(SyncKernelError) in
            try tx.save(Row(id: "r1", value: "v", updatedAt: 1))
        }
        _ = replica.drainActions()
        return (replica, store)
    }
}
