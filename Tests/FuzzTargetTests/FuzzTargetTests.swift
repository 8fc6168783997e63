import NotebookNamespace
import SyncKernel
@testable import SyncKernelFuzz
import XCTest

/// The short version of `make fuzz`: each target's entry function (the one the libFuzzer
/// executable calls) over its generated seed corpus and seeded mutations of it, in seconds.
final class FuzzTargetTests: XCTestCase {
    /// Mutants per target; the replica target opens a SQLite store per input, so it runs fewer.
    private static let mutants: [FuzzTarget: Int] = [.cbor: 4_000, .frame: 3_000, .row: 4_000, .replica: 150, .envelope: 2_000]

    /// Runs `target` over its seeds and `mutants` mutations, failing on the first violation with
    /// the seed and mutant index that replay it.
    private func exercise(_ target: FuzzTarget, seed: UInt64 = 0xf022) throws {
        let seeds = try FuzzCorpus.seeds(for: target)
        XCTAssertFalse(seeds.isEmpty, "\(target): no seeds")
        var accepted = 0
        for (index, input) in seeds.enumerated() where try run(target, input, "seed \(index)") == .accepted {
            accepted += 1
        }
        XCTAssertEqual(accepted, seeds.count, "\(target): every generated seed must be accepted")
        var mutator = FuzzMutator(seed: seed)
        let count = Self.mutants[target] ?? 0
        var acceptedMutants = 0
        for index in 0..<count {
            let input = mutator.mutate(seeds[index % seeds.count], other: seeds[(index * 7 + 3) % seeds.count])
            if try run(target, input, "mutant \(index) of mutator seed \(seed)") == .accepted { acceptedMutants += 1 }
        }
        print("fuzz \(target.rawValue): \(seeds.count) seeds accepted, \(count) mutants run, \(acceptedMutants) accepted, "
              + "\(count - acceptedMutants) refused")
    }

    private func run(_ target: FuzzTarget, _ input: [UInt8], _ label: String) throws -> FuzzOutcome? {
        do {
            return try target.run(input)
        } catch {
            XCTFail("\(target) \(label) (\(input.count) bytes): \(error)")
            return nil
        }
    }

    func testCBORReaderTargetOverSeedsAndMutants() throws { try exercise(.cbor) }
    func testFrameDecoderTargetOverSeedsAndMutants() throws { try exercise(.frame) }
    func testRowDecoderTargetOverSeedsAndMutants() throws { try exercise(.row) }
    func testReplicaReceiveTargetOverSeedsAndMutants() throws { try exercise(.replica) }
    func testEnvelopeGateTargetOverSeedsAndMutants() throws { try exercise(.envelope) }

    /// The envelope target's mutants get past the sealed box: the seeded run meets the checks
    /// behind it (inside layout, certificate, MAC, recipient, window, a session's tag), not only
    /// `unopenable`; the distribution is printed.
    func testEnvelopeMutantsReachTheChecksBehindTheSealedBox() throws {
        let seeds = try FuzzCorpus.seeds(for: .envelope)
        var mutator = FuzzMutator(seed: 0xe7)
        var reasons: [String: Int] = [:]
        for index in 0..<2_000 {
            let input = mutator.mutate(seeds[index % seeds.count], other: seeds[(index * 7 + 3) % seeds.count])
            switch try EnvelopeFuzzTarget.verdict(input) {
            case .accepted: reasons["accepted", default: 0] += 1
            case .dropped(let reason): reasons[reason.description, default: 0] += 1
            case nil: reasons["empty", default: 0] += 1
            }
        }
        print("fuzz envelope verdicts: " + reasons.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        for expected in ["SE105 unopenable", "SE106 malformed", "SE108 badCertificate", "SE110 badMAC", "SE113 misaddressed",
                         "SE114 outsideWindow", "SE119 badSessionTag", "accepted"] {
            XCTAssertGreaterThan(reasons[expected] ?? 0, 0, "no mutant met \(expected)")
        }
    }

    /// The corpus covers every frame kind, in both frame forms, every namespace and both replica
    /// siblings' frames.
    func testSeedCorpusCoversEveryFrameKindAndNamespace() throws {
        let frames = try FuzzCorpus.seeds(for: .frame).compactMap { try? SyncFrame(decoding: $0) }
        let kinds = Set(frames.map(\.body.kind))
        XCTAssertEqual(kinds, ["state_digest", "heartbeat", "reconcile_req", "reconcile_resp", "sketch_req", "range_req", "push", "push_ack"])
        let compactKinds = Set(frames.filter(\.compactHeader).map(\.body.kind))
        XCTAssertTrue(compactKinds.isSuperset(of: ["state_digest", "reconcile_resp", "sketch_req"]),
                      "compact frames of the sketch exchange are seeds too: \(compactKinds.sorted())")
        XCTAssertTrue(frames.contains { !$0.compactHeader }, "and spec-form frames")
        let namespaces = Set(try FuzzCorpus.seeds(for: .row).compactMap(\.first))
        XCTAssertEqual(namespaces.count, FuzzNamespaces.all.count)
        XCTAssertEqual(FuzzNamespaces.all.count, 13)
    }

    /// The recorded exchanges behind the replica seeds are real: replaying the frames the sibling
    /// sent to a fresh device 0 brings it the note the sibling created (so seeds reach `apply`).
    func testRecordedExchangeReplaysOntoAFreshReplica() throws {
        for mode in [ReconcileMode.sketch, .spec] {
            let frames = try RecordedExchange(peerMode: mode).toLocal
            let local = try ReplicaHarness(device: 0, mode: .sketch, seedRows: 4)
            XCTAssertNil(try local.store.leafHash(namespace: NotebookNamespace.name, key: ReplicaHarness.noteID(7)))
            for (index, frame) in frames.enumerated() {
                local.replica.receive(frame, from: local.devices[1], now: ReplicaFuzzTarget.startMillis + Int64(index) * 30)
            }
            XCTAssertNotNil(try local.store.leafHash(namespace: NotebookNamespace.name, key: ReplicaHarness.noteID(7)), "\(mode)")
            XCTAssertNoThrow(try local.store.verifyStructures())
        }
    }

    /// A replica script reads back as the steps it was written from.
    func testReplicaStepsRoundTrip() {
        let steps: [ReplicaStep] = [.edit(key: 0x81, value: 3), .tick, .frame(sender: 1, bytes: [1, 2, 3]), .frame(sender: 0, bytes: [])]
        XCTAssertEqual(ReplicaStep.parse(ReplicaStep.encode(steps)), steps)
    }
}
