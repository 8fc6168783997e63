/// `reconcile_resp`: rows that differ with their vectors, delete versions, leaf listings of large
/// mismatching ranges, and (in the sketch exchange) the keys the sender wants back.
///
/// Invariants: sent only when it carries at least one row, tombstone, listing or wanted key; a
/// responder with nothing to give stays silent. Rows are split across several responses so no
/// frame outgrows `ReconcileResponse.rowBytesPerFrame` or names more devices than a receiver's
/// `DeviceTable` reads (`split()`); `want` and `wantPrefixes` ride on the first.
package struct ReconcileResponse: Sendable, Hashable {
    /// The namespace the rows belong to.
    package let namespace: String
    /// The rows in the ranges whose fingerprints did not match (or that were asked for by key).
    package let rows: [ShippedRow]
    /// Every delete version the responder holds for the namespace, possibly several concurrent
    /// ones per key (for a by-key request: those of the keys asked for).
    package let tombstones: [Tombstone]
    /// Leaf listings of large mismatching ranges, for the requester to diff.
    package let listings: [RangeListing]
    /// Keys whose rows (and delete versions) the sender asks the receiver to ship back.
    package let want: [[UInt8]]
    /// Rows the sender asks the receiver to ship back, each named by a prefix of its key that the
    /// sender worked out from the sketch's difference to start exactly one of the receiver's
    /// synced keys (`KernelStore.wantPrefixes`); the receiver ships the rows of the synced keys
    /// that start with it, when there are at most `maxPrefixMatches` (a sender's wrong guess, a
    /// concurrent write, costs a row that does not differ, never a missing one for long: the next
    /// round's digests show what still differs). Never empty prefixes.
    package let wantPrefixes: [[UInt8]]
    /// Whether this response is itself a ship-back: its receiver merges it and ships nothing
    /// back, so an exchange ends after at most one ship-back whatever the rule's merge does.
    package let isFinal: Bool
    /// How many parts of the same answer follow this one (`split()` numbers them; 0 for the last
    /// or only part, which is not written). A receiver keeps the exchange open until the last.
    package let remaining: Int

    /// The most parts one answer is announced to have after a part (a frame claiming more is
    /// refused).
    package static let maxRemaining = 1 << 20

    /// The encoded row bytes one response carries at most before the rest go in another.
    package static let rowBytesPerFrame = 4 << 20

    /// Creates a response.
    package init(namespace: String, rows: [ShippedRow], tombstones: [Tombstone], listings: [RangeListing] = [],
                 want: [[UInt8]] = [], wantPrefixes: [[UInt8]] = [], isFinal: Bool = false, remaining: Int = 0) {
        self.namespace = namespace
        self.rows = rows
        self.tombstones = tombstones
        self.listings = listings
        self.want = want
        self.wantPrefixes = wantPrefixes
        self.isFinal = isFinal
        self.remaining = remaining
    }

    /// Throws `counterOutOfRange` when any vector the response carries (a row's, a content
    /// vector, a sibling's, a tombstone's) holds a counter above `VersionVector.maxCounter`.
    package func checkCounters() throws(SyncKernelError) {
        for row in rows { try row.checkCounters() }
        for tombstone in tombstones { try tombstone.vector.checkBounds("a tombstone") }
    }

    /// Whether the response carries nothing.
    package var isEmpty: Bool { rows.isEmpty && tombstones.isEmpty && listings.isEmpty && want.isEmpty && wantPrefixes.isEmpty }

    /// The most synced keys one wanted prefix ships; a prefix that starts more is ignored.
    package static let maxPrefixMatches = 4

    /// The modelled decoding excess one part may carry: what decoding it keeps beyond 4 bytes per
    /// wire byte (`DecodeBudget`), half the budget's slack, so the frame's own fields and device
    /// table fit in the other half. Parts of small rows are cut by this rather than by bytes.
    package static let decodeExcessPerFrame = DecodeBudget.slack / 2

    /// The most leaves one piece of a listing carries; a longer listing is cut into pieces over
    /// consecutive sub-ranges of its range (together the same leaves over the same range).
    package static let leavesPerListingPiece = 4096

    /// This response split so each part stays within `rowBytesPerFrame` of estimated wire bytes,
    /// `decodeExcessPerFrame` of modelled decoding excess and `DeviceTable.maxDevices` devices
    /// named (`DeviceTally`; a single row larger than any travels alone), so every part encodes
    /// within `SyncFrame.maxFrameBytes` and decodes within its `DecodeBudget` and its device table's
    /// bound. Tombstones, listings (cut into pieces of `leavesPerListingPiece`)
    /// and `want` (with `wantPrefixes`) come first, so they ride on the first part unless they fill it, then the rows
    /// in order; every part keeps `isFinal` and says how many parts follow it (`remaining`).
    package func split() -> [ReconcileResponse] {
        var parts: [ReconcileResponse] = []
        var part: (rows: [ShippedRow], tombstones: [Tombstone], listings: [RangeListing], want: [[UInt8]], prefixes: [[UInt8]])
            = ([], [], [], [], [])
        var bytes = 0
        var excess = 0
        var items = 0
        var tally = DeviceTally()
        func flush() {
            parts.append(ReconcileResponse(namespace: namespace, rows: part.rows, tombstones: part.tombstones, listings: part.listings,
                                           want: part.want, wantPrefixes: part.prefixes, isFinal: isFinal))
            part = ([], [], [], [], [])
        }
        func makeRoom(size: Int, excess cost: Int, devices: Set<DeviceID> = []) {
            if items > 0, bytes + size > ReconcileResponse.rowBytesPerFrame || excess + cost > ReconcileResponse.decodeExcessPerFrame
                || !tally.admits(devices) {
                flush()
                (bytes, excess, items, tally) = (0, 0, 0, DeviceTally())
            }
            bytes += size
            excess += cost
            items += 1
            tally.add(devices)
        }
        for tombstone in tombstones {
            makeRoom(size: ReconcileResponse.encodedSize(of: tombstone), excess: ReconcileResponse.decodeExcess(of: tombstone),
                     devices: DeviceTally.devices(of: tombstone))
            part.tombstones.append(tombstone)
        }
        for listing in listings {
            for piece in ReconcileResponse.pieces(of: listing) {
                makeRoom(size: piece.encodedSize, excess: piece.decodeExcess)
                part.listings.append(piece)
            }
        }
        for key in want {
            makeRoom(size: key.count + 9, excess: ReconcileResponse.wantedKeyExcess(key))
            part.want.append(key)
        }
        for prefix in wantPrefixes {
            makeRoom(size: prefix.count + 9, excess: ReconcileResponse.wantedKeyExcess(prefix))
            part.prefixes.append(prefix)
        }
        for row in rows {
            makeRoom(size: row.encodedSize, excess: row.decodeExcess, devices: DeviceTally.devices(of: row))
            part.rows.append(row)
        }
        flush()
        return parts.enumerated().map { index, part in
            ReconcileResponse(namespace: namespace, rows: part.rows, tombstones: part.tombstones, listings: part.listings, want: part.want,
                              wantPrefixes: part.wantPrefixes, isFinal: isFinal, remaining: min(parts.count - 1 - index, Self.maxRemaining))
        }
    }

    /// `listing` cut into pieces of at most `leavesPerListingPiece` leaves over consecutive
    /// sub-ranges: the first starts at the listing's `lo`, each next one at its first leaf, the
    /// last ends at the listing's `hi`.
    package static func pieces(of listing: RangeListing) -> [RangeListing] {
        guard listing.leaves.count > leavesPerListingPiece else { return [listing] }
        let starts = Array(stride(from: 0, to: listing.leaves.count, by: leavesPerListingPiece))
        return starts.enumerated().map { index, start in
            let end = min(start + leavesPerListingPiece, listing.leaves.count)
            let lo = index == 0 ? listing.range.lo : listing.leaves[start].key
            let hi = end < listing.leaves.count ? listing.leaves[end].key : listing.range.hi
            return RangeListing(range: KeyRange(lo: lo, hi: hi), leaves: Array(listing.leaves[start..<end]))
        }
    }

    /// What decoding a wanted key keeps beyond 4 bytes per wire byte.
    private static func wantedKeyExcess(_ key: [UInt8]) -> Int {
        MemoryLayout<[UInt8]>.stride + DecodeBudget.arrayBytes(stride: 1, count: key.count)
            - DecodeBudget.bytesPerInputByte * (key.count + 1)
    }

    /// An estimate of a tombstone's encoded size on the wire, for splitting responses: its key
    /// plus a bound on its vector's.
    package static func encodedSize(of tombstone: Tombstone) -> Int {
        tombstone.key.count + 64 * (tombstone.vector.counters.count + 1)
    }

    /// What decoding a tombstone keeps beyond 4 bytes per wire byte, at most.
    package static func decodeExcess(of tombstone: Tombstone) -> Int {
        MemoryLayout<Tombstone>.stride + DecodeBudget.arrayBytes(stride: 1, count: tombstone.key.count)
            - DecodeBudget.bytesPerInputByte * (tombstone.key.count + 2) + ShippedRow.decodeExcess(of: tombstone.vector)
    }
}
