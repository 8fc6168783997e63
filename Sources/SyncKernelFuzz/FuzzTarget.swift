/// The libFuzzer targets, each an entry function from input bytes to an outcome or a violation.
///
/// Invariant: `run(_:)` is the one function both the libFuzzer executable and the seeded test
/// call, so a crash file replays the same code the test covers; it never traps on a typed
/// refusal, and throws `FuzzViolation` only when a checked invariant broke.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// `CBORReader`: decode, sequence decode and canonical re-encoding.
    case cbor
    /// `SyncFrame(decoding:)` and a re-encoding round trip.
    case frame
    /// Every namespace's `decodeRow(bytes:)`, the first byte choosing the namespace.
    case row
    /// `Replica.receive(_:from:now:)` over a `KernelStore` on a temporary SQLite file.
    case replica
    /// `EnvelopeGate.open(_:now:)`: the self-gate on sealed envelopes, before any frame parsing.
    case envelope

    /// Runs the target on one input.
    package func run(_ bytes: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        switch self {
        case .cbor: return try CBORFuzzTarget.run(bytes)
        case .frame: return try FrameFuzzTarget.run(bytes)
        case .row: return try RowFuzzTarget.run(bytes)
        case .replica: return try ReplicaFuzzTarget.run(bytes)
        case .envelope: return try EnvelopeFuzzTarget.run(bytes)
        }
    }
}
