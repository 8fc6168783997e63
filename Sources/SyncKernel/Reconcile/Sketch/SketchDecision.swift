/// The detection outcome of a peer's `sketch_req`, before any row is read.
///
/// Invariant: `.differs` lists each differing key once, sorted: `wanted` are keys whose item the
/// peer holds and this store does not, `offered` keys whose item this store holds and the peer
/// does not; an edited row is in both. Which side ships an edited row is decided when the rows
/// are read (`KernelStore.responses(_:wanted:offered:mark:)`).
package enum SketchDecision: Sendable, Hashable {
    /// The sketch decoded.
    case differs(wanted: [[UInt8]], offered: [[UInt8]])
    /// The sketch did not decode, or one side holds nothing: this is the answer.
    case answer(SketchAnswer)
}
