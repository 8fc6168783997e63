/// Cutting a trie comparison into frames a receiver of the same build reads.
///
/// Invariants: every part names at most `KernelStore.maxCompareNodes` nodes (what a receiver
/// answers in one frame), stays within `ReconcileResponse.rowBytesPerFrame` of estimated wire
/// bytes and `ReconcileResponse.decodeExcessPerFrame` of modelled decoding excess (so it encodes
/// within `SyncFrame.maxFrameBytes` and decodes within its `DecodeBudget`), and listings are cut
/// into pieces of `ReconcileResponse.leavesPerListingPiece` leaves; together the parts hold
/// exactly the nodes and the leaves of the whole, in order. Each part is answered on its own.
extension RangeCompare {
    /// This comparison in parts, each within the bounds above (one part when it fits).
    package func split() -> [RangeCompare] {
        var parts: [RangeCompare] = []
        var nodes: [NodeFingerprint] = []
        var listings: [RangeListing] = []
        var bytes = 0
        var excess = 0
        func makeRoom(size: Int, excess cost: Int, node: Bool) {
            let full = bytes + size > ReconcileResponse.rowBytesPerFrame || excess + cost > ReconcileResponse.decodeExcessPerFrame
                || (node && nodes.count >= KernelStore.maxCompareNodes)
            if full, !(nodes.isEmpty && listings.isEmpty) {
                parts.append(RangeCompare(namespace: namespace, nodes: nodes, listings: listings))
                (nodes, listings, bytes, excess) = ([], [], 0, 0)
            }
            bytes += size
            excess += cost
        }
        for pair in self.nodes {
            makeRoom(size: pair.encodedSize, excess: pair.decodeExcess, node: true)
            nodes.append(pair)
        }
        for listing in self.listings {
            for piece in ReconcileResponse.pieces(of: listing) {
                makeRoom(size: piece.encodedSize, excess: piece.decodeExcess, node: false)
                listings.append(piece)
            }
        }
        if !(nodes.isEmpty && listings.isEmpty) || parts.isEmpty {
            parts.append(RangeCompare(namespace: namespace, nodes: nodes, listings: listings))
        }
        return parts
    }
}

extension RangeCompare.NodeFingerprint {
    /// A bound on the node's encoded size: its array and nibbles' heads, the nibbles, the
    /// fingerprint's head and 24 bytes.
    package var encodedSize: Int {
        node.nibbles.count + 32
    }

    /// What decoding the node keeps beyond `DecodeBudget.bytesPerInputByte` per wire byte (the
    /// pair's slot in the nodes array and its nibbles' storage, against its wire bytes at the
    /// least: the nibbles and the 24-byte fingerprint).
    package var decodeExcess: Int {
        MemoryLayout<RangeCompare.NodeFingerprint>.stride + DecodeBudget.arrayBytes(stride: 1, count: node.nibbles.count)
            - DecodeBudget.bytesPerInputByte * (node.nibbles.count + 24)
    }
}
