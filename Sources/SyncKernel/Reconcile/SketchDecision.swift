/// The detection outcome of a peer's `sketch_req`, before any row is read.
///
/// Invariant: `.differs` lists each differing key once, sorted: `wanted` are keys whose item the
/// peer holds and this store does not (the peer ships them back), `offered` keys whose item this
/// store holds and the peer does not (this store ships them); an edited row is in both.
package enum SketchDecision: Sendable, Hashable {
    /// The sketch decoded.
    case differs(wanted: [[UInt8]], offered: [[UInt8]])
    /// The sketch did not decode, or one side holds nothing: this is the answer.
    case answer(SketchAnswer)
}
