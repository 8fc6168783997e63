/// What a store answers to a peer's `sketch_req`.
///
/// Invariant: exactly one next step per sketch, so the exchange needs no session state: the
/// rows that differ and the keys wanted back (decoded), a larger sketch of the receiver's own
/// (not decoded, room left), the trie comparison (not decoded at full capacity), or a request
/// for the whole namespace (the receiver holds nothing).
package enum SketchAnswer: Sendable, Hashable {
    /// The sketch decoded: ship these responses (rows the sender lacks or holds differently,
    /// delete versions of every differing key, and the keys wanted back).
    case responses([ReconcileResponse])
    /// The sketch did not decode: here are twice as many of the receiver's own symbols.
    case sketch(SketchRequest)
    /// The sketch did not decode at full capacity: compare trie nodes instead.
    case ranges(RangeCompare)
    /// The receiver holds nothing: it asks for the whole namespace.
    case whole(ReconcileRequest)
}
