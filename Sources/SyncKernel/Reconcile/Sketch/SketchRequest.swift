/// `sketch_req`: "here are the first coded symbols of my set for one namespace; decode them
/// against yours".
///
/// Invariants: `symbols` are the sender's symbols 0..<symbols.count of its persisted
/// `RatelessSketch` (so symbol 0's count is the sender's item count), at most
/// `RatelessSketch.standardCapacity` of them (checked when decoding). The exchange is stateless:
/// a receiver that cannot decode answers with twice as many of its own symbols, so neither side
/// keeps a session between frames. With `countResidues`, a compact frame carries the counts of
/// the symbols after the first modulo 256, which is exact whenever at most `maxResidueItems`
/// items differ (no symbol's count then differs from the receiver's by more than that).
package struct SketchRequest: Sendable, Hashable {
    /// The namespace to reconcile.
    package let namespace: String
    /// The first `rootPrefixBytes` bytes of the sender's set-hash root of the namespace when it
    /// took the symbols: enough to tell "we converged meanwhile" from a collision of symbols.
    package let root: [UInt8]

    /// How much of the root a sketch carries: 64 bits. It only tells a sketch that decoded to no
    /// difference under equal roots (converged meanwhile: nothing to send) from one whose symbols
    /// collided (the trie comparison takes over); a false match, at 2^-64, leaves the difference
    /// to the next round's digests, which carry 128 bits.
    package static let rootPrefixBytes = 8
    /// The sender's first coded symbols.
    package let symbols: [CodedSymbol]
    /// Whether the symbols after the first travel with their counts modulo 256 in a compact
    /// frame (the sender expects at most `maxResidueItems` differing items). A request decoded
    /// from such a frame holds those residues, sign-extended, until `restoringCounts(from:)`
    /// takes each count from the receiver's own symbol; a request sent in the spec's frame form
    /// carries its full counts whatever this says.
    package let countResidues: Bool

    /// The most differing items for which a sketch's counts travel as residues: a symbol's count
    /// then differs from the receiver's by at most this, which one signed byte holds.
    package static let maxResidueItems = 127

    /// The most symbols a sketch may hold: the persisted sketch's whole capacity
    /// (`WideSketch.capacity`, 262,144). The frame reader refuses more (`malformedFrame`), and
    /// a sender never builds more; more than `RatelessSketch.standardCapacity` go only to a peer
    /// that announced `SyncFrame.wideCapacity`.
    package static let maxSymbols = WideSketch.capacity

    /// The room a sketch frame keeps for its other fields, in wire bytes and in decoding memory.
    package static let fieldReserve = SyncFrame.fieldBytes

    /// The longest prefix of `symbols` (at most `maxSymbols`) that a receiver of this build
    /// accepts in one frame, whichever form the frame is written in: its spec-form size (each
    /// symbol at most 16 bytes beside its key sum) within `SyncFrame.maxFrameBytes` less
    /// `fieldReserve`, and what decoding it keeps (`DecodeBudget`: the symbol array and each key
    /// sum) within the budget of the smallest frame that can carry it (each symbol at least a
    /// count byte, its key sum less one implied byte, and its tag sum) less `fieldReserve`.
    /// Sketches of keys of 16 bytes or more are never cut below `maxSymbols`; shorter keys cost
    /// more decoding memory per wire byte, and their sketches are cut (about 29,000 symbols for
    /// keys of 8 bytes), so a larger difference falls back to the trie comparison.
    ///
    /// Invariant: `SyncFrame` decoding accepts a sketch of the returned prefix
    /// (`LargeDifferenceTests.testTheLargestSketchASenderBuildsIsAcceptedByTheReceiver`); the count
    /// never exceeds `symbols.count` and is at least 1 when `symbols` is not empty.
    package static func admittedPrefix(_ symbols: [CodedSymbol]) -> [CodedSymbol] {
        let limit = min(symbols.count, maxSymbols)
        var wireBytes = 0
        var smallestWire = 0
        var keptBytes = 0
        for index in 0..<limit {
            let length = symbols[index].keySum.count
            wireBytes += length + 16
            smallestWire += 1 + max(0, length - 1) + CodedSymbol.tagBytes
            keptBytes += DecodeBudget.arrayBytes(stride: 1, count: length)
            let arrayBytes = DecodeBudget.arrayBytes(stride: MemoryLayout<CodedSymbol>.stride, count: index + 1)
            let budget = DecodeBudget.bytesPerInputByte * smallestWire + DecodeBudget.slack - fieldReserve
            if index > 0, wireBytes > SyncFrame.maxFrameBytes - fieldReserve || keptBytes + arrayBytes > budget {
                return Array(symbols.prefix(index))
            }
        }
        return limit == symbols.count ? symbols : Array(symbols.prefix(limit))
    }

    /// Creates a request.
    package init(namespace: String, root: [UInt8], symbols: [CodedSymbol], countResidues: Bool = false) {
        self.namespace = namespace
        self.root = Array(root.prefix(SketchRequest.rootPrefixBytes))
        self.symbols = symbols
        self.countResidues = countResidues
    }

    /// The symbols with their counts restored against `local` (the receiver's symbols from 0):
    /// each count after the first becomes the local count plus the signed byte its residue
    /// differs by, which is the sender's count whenever the two differ by at most 127. Without
    /// `countResidues` the symbols as they are.
    ///
    /// Invariant: never traps; a residue from a difference wider than a byte restores to a count
    /// off by a multiple of 256, which leaves that symbol undecodable (never falsely pure beyond
    /// the key check), so the decode fails and the exchange falls back as for too few symbols.
    package func restoringCounts(from local: ArraySlice<CodedSymbol>) -> [CodedSymbol] {
        guard countResidues else { return symbols }
        var restored = symbols
        for (offset, index) in zip(restored.indices.dropFirst(), local.indices.dropFirst()) {
            let localCount = local[index].count
            let residue = UInt8(truncatingIfNeeded: restored[offset].count) &- UInt8(truncatingIfNeeded: localCount)
            restored[offset].count = localCount &+ Int64(Int8(bitPattern: residue))
        }
        return restored
    }
}
