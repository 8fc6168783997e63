import KernelBench
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator
import XCTest

/// The save's check without a round trip (`RowSchema.checkRow`): a schema of standard codecs
/// whose decoded tree the declaration bounds is checked value by value and by its `validate`,
/// refusing exactly the rows the decode-and-re-encode round trip refuses; every other schema
/// (a custom codec, a derived leaf item, an array, a variant row) keeps the round trip.
final class SaveCheckTests: XCTestCase {
    /// A row with fixed-length byte strings at every nesting the standard codecs allow.
    struct Row: Sendable, Hashable {
        struct Pair: Sendable, Hashable {
            var tag: [UInt8]
            var label: String
        }

        var id: [UInt8]
        var digest: [UInt8]?
        var pair: Pair
        var mark: Register<[UInt8]>
        var seen: Date
        var note: String
    }

    /// Causal rows of `Row`; `validate` refuses a note of "forbidden".
    enum Checked: SyncNamespace {
        static let name = "checked"
        static let schema = RowSchema<Row>(
            blank: Row(id: [], digest: nil, pair: Row.Pair(tag: [], label: ""), mark: Register([]), seen: .distantPast, note: ""),
            key: \.id, validate: { row throws(SyncKernelError) in
                guard row.note != "forbidden" else { throw SyncKernelError(.malformedFrame, "a forbidden note") }
            }, [
                .hashed("id", \.id, .bytes(count: 16)),
                .hashed("digest", \.digest, .optional(.bytes(count: 4))),
                .hashed("pair", \.pair, .record(Row.Pair(tag: [], label: ""), [.member("tag", \.tag, .bytes(count: 2)),
                                                                                  .member("label", \.label, .text)])),
                .hashed("mark", \.mark, .register(.bytes(count: 3))),
                .hashed("seen", \.seen, .date),
                .hashed("note", \.note, .text),
            ])
        static let mergeRule = MergeRule<Row>.causal(changeStamp: \.seen)
    }

    /// A row that passes every check.
    private func valid(_ id: UInt8) -> Row {
        Row(id: [UInt8](repeating: id, count: 16), digest: [1, 2, 3, 4], pair: Row.Pair(tag: [5, 6], label: "p"),
            mark: Register([7, 8, 9]), seen: Date(timeIntervalSince1970: 1_790_000_000.25), note: "fine")
    }

    /// Whether the decode-and-re-encode round trip accepts `row`, as a save did before the check.
    private func roundTripAccepts(_ row: Row) -> Bool {
        let bytes = Checked.rowEncoding(of: row)
        guard let decoded = try? Checked.decodeRow(bytes: bytes) else { return false }
        return Checked.rowEncoding(of: decoded) == bytes && Checked.leafEncoding(of: decoded) == Checked.leafEncoding(of: row)
    }

    func testRejectSavesOfFixedLengthBytesOfAnotherLengthAtAnyNestingAndWhatValidateRefuses() throws {
        let world = try TestWorld()
        let store = try world.store([Checked.self])
        var refused: [(String, Row)] = []
        var row = valid(1)
        row.id = Array(row.id.dropLast())
        refused.append(("a 15-byte key", row))
        row = valid(1)
        row.digest = [1, 2, 3]
        refused.append(("an optional's 3 bytes", row))
        row = valid(1)
        row.pair.tag = [5, 6, 7]
        refused.append(("a record member's 3 bytes", row))
        row = valid(1)
        row.mark = Register([])
        refused.append(("a register's empty value", row))
        row = valid(1)
        row.note = "forbidden"
        refused.append(("what validate refuses", row))
        for (label, row) in refused {
            XCTAssertFalse(roundTripAccepts(row), "\(label): the round trip refuses it too")
            XCTAssertThrowsError(try store.write(Checked.self) { tx throws(SyncKernelError) in try tx.save(row) }, label) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, .rowRejected, "\(label): \(error)")
            }
        }
        XCTAssertEqual(try store.rows(Checked.self), [], "nothing of a refused save is stored")
        var absent = valid(2)
        absent.digest = nil
        try store.write(Checked.self) { tx throws(SyncKernelError) in
            try tx.save(valid(1))
            try tx.save(absent)
        }
        XCTAssertEqual(Set(try store.rows(Checked.self)).count, 2)
        XCTAssertEqual(try store.row(Checked.self, key: valid(1).id)?.seen, Date(timeIntervalSince1970: 1_790_000_000),
                       "the stored row is the encoding's: whole seconds")
    }

    func testTheCheckRefusesExactlyWhatTheRoundTripRefuses() throws {
        let check = try XCTUnwrap(Checked.schema.checkRow, "a bounded schema of standard codecs has the check")
        let seed: UInt64 = 0x5a7e_c4ec
        var random = SeededGenerator(seed: seed)
        var accepted = 0
        for trial in 0..<2_000 {
            var row = valid(UInt8(truncatingIfNeeded: trial))
            func length(_ usual: Int) -> Int { random.chance(0.2) ? Int(random.next() % 6) : usual }
            row.id = random.bytes(length(16))
            row.digest = random.chance(0.3) ? nil : random.bytes(length(4))
            row.pair.tag = random.bytes(length(2))
            row.mark = Register(random.bytes(length(3)))
            for _ in 0..<random.next() % 3 { row.mark.set(random.bytes(length(3))) }
            row.seen = Date(timeIntervalSince1970: Double(Int64(bitPattern: random.next()) % 100_000_000_000) / 7)
            row.note = random.chance(0.1) ? "forbidden" : "n\(random.next() % 100)"
            let checked = (try? check(row)) != nil
            XCTAssertEqual(checked, roundTripAccepts(row), "seed \(seed) trial \(trial): \(row)")
            if checked { accepted += 1 }
        }
        XCTAssertGreaterThan(accepted, 200, "seed \(seed): both outcomes are exercised")
        XCTAssertLessThan(accepted, 1_800, "seed \(seed): both outcomes are exercised")
    }

    /// A row holding an array.
    struct ListRow: Sendable, Hashable {
        var id: String
        var items: [String]
    }

    func testTheRoundTripStaysWhereTheDeclarationCannotBoundTheDecode() {
        XCTAssertNotNil(BenchNamespace.schema.checkRow)
        XCTAssertNotNil(Decl.Validated.schema.checkRow)
        XCTAssertNil(Decl.LossyCodec.schema.checkRow, "a custom codec")
        XCTAssertNil(NotebookNamespace.schema.checkRow, "a leaf item derived from the row")
        let variants = RowSchema<Decl.Row>.variants(derivedKey: "id", { Array($0.id.utf8) }, [
            .variant("row", tag: 1, blank: Decl.blank, embed: { $0 }, extract: { $0 }, [Decl.id, Decl.value, Decl.count, Decl.seenBy]),
        ])
        XCTAssertNil(variants.checkRow, "a variant row")
        let list = RowSchema<ListRow>(blank: ListRow(id: "", items: []), key: \.id, [
            .hashed("id", \.id, .text), .hashed("items", \.items, .array(.text)),
        ])
        XCTAssertNil(list.checkRow, "an array field: the reader's limits depend on its length")
    }

    func testTheBoundOnTheDecodedTreeCountsItemsAndNesting() throws {
        XCTAssertEqual(CodecShape.bytes(count: 16).boundedTree?.items, 1)
        XCTAssertEqual(CodecShape.date.boundedTree?.depth, 1, "a tag nests")
        let record = try XCTUnwrap(CodecShape.record([.text, .optional(.date, emptyIsAbsent: false), .register(.int64)]).boundedTree)
        XCTAssertEqual(record.items, 1 + 1 + 2 + 3)
        XCTAssertEqual(record.depth, 2)
        XCTAssertNil(CodecShape.record([.text, .array(.text)]).boundedTree)
        XCTAssertNil(CodecShape.record([.custom(name: "x")]).boundedTree)
        var deep = CodecShape.text
        for _ in 0..<RowSchema<Row>.checkedTreeBound.depth { deep = .record([deep]) }
        XCTAssertEqual(deep.boundedTree?.depth, RowSchema<Row>.checkedTreeBound.depth)
        XCTAssertLessThan(RowSchema<Row>.checkedTreeBound.depth, CBORLimits.frame.maxDepth)
        let wide = CodecShape.record(Array(repeating: .int64, count: RowSchema<Row>.checkedTreeBound.items))
        XCTAssertEqual(wide.boundedTree?.items, RowSchema<Row>.checkedTreeBound.items + 1, "one past the bound: the round trip")
    }
}
