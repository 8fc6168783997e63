/// One item move of a namespace's wide sketch tier since the tier's blocks were last written
/// (`sk_journal`): which item and whether it was added or removed.
///
/// Invariants: the persisted form is a direction byte (1 added, 2 removed), the item's tag as 4
/// big-endian bytes, then the key; `init(decoding:)` accepts exactly the bytes `encoded()`
/// writes for a key of at most `SketchItem.maxKeyBytes` bytes and refuses anything else with
/// `corruptBookkeeping`. Replaying every entry of the journal over the persisted blocks gives
/// the tier of the current set, whatever order the entries are replayed in (the moves commute).
struct WideJournalEntry: Sendable, Equatable {
    /// The item moved.
    let item: SketchItem
    /// +1 added, -1 removed.
    let direction: Int64

    /// An entry for `item` moved in `direction` (+1 or -1).
    init(item: SketchItem, direction: Int64) {
        self.item = item
        self.direction = direction
    }

    /// The persisted form.
    ///
    /// Invariant: `WideJournalEntry(decoding: encoded())` equals this entry.
    func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(1 + CodedSymbol.tagBytes + item.key.count)
        bytes.append(direction > 0 ? 1 : 2)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: item.tag >> UInt32(shift))) }
        bytes.append(contentsOf: item.key)
        return bytes
    }

    /// Reads a persisted entry; throws `corruptBookkeeping` for a wrong direction byte, fewer
    /// than 5 bytes or a key longer than `SketchItem.maxKeyBytes`.
    init(decoding bytes: [UInt8]) throws(SyncKernelError) {
        let header = 1 + CodedSymbol.tagBytes
        guard bytes.count >= header, bytes.count - header <= SketchItem.maxKeyBytes, bytes[0] == 1 || bytes[0] == 2 else {
            throw SyncKernelError(.corruptBookkeeping, "a wide sketch journal entry is malformed")
        }
        item = SketchItem(key: Array(bytes[header...]), tag: CodedSymbol.readTagSum(bytes, at: 1))
        direction = bytes[0] == 1 ? 1 : -1
    }
}
