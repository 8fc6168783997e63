/// `sketch_req`: "here are the first coded symbols of my set for one namespace; decode them
/// against yours".
///
/// Invariants: `symbols` are the sender's symbols 0..<symbols.count of its persisted
/// `RatelessSketch` (so symbol 0's count is the sender's item count), at most
/// `RatelessSketch.standardCapacity` of them (checked when decoding). The exchange is stateless:
/// a receiver that cannot decode answers with twice as many of its own symbols, so neither side
/// keeps a session between frames.
package struct SketchRequest: Sendable, Hashable {
    /// The namespace to reconcile.
    package let namespace: String
    /// The first `rootPrefixBytes` bytes of the sender's set-hash root of the namespace when it
    /// took the symbols: enough to tell "we converged meanwhile" from a collision.
    package let root: [UInt8]

    /// How much of the root a sketch carries.
    package static let rootPrefixBytes = 16
    /// The sender's first coded symbols.
    package let symbols: [CodedSymbol]

    /// Creates a request.
    package init(namespace: String, root: [UInt8], symbols: [CodedSymbol]) {
        self.namespace = namespace
        self.root = Array(root.prefix(SketchRequest.rootPrefixBytes))
        self.symbols = symbols
    }
}
