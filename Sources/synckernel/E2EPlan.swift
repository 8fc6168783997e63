/// Where one point of `synckernel bench-e2e` puts its D differences, as `bench-rows` commands for
/// each device: the in-memory bench's shape (`KernelBench`'s `DifferencePlan`): a third of D as
/// edits of preloaded rows, the rest inserts of new rows; on one side all on device a, on both
/// sides half of the inserts and half of the edits on each.
///
/// Invariants: `insertsOnA + insertsOnB + editsOnA + editsOnB == differences`; every key the
/// plan touches differs between the two stores once it is written (inserts are new keys, edits
/// touch preloaded rows no other step of the preload or the plan touched: numbers from
/// `rows / 5` of each device's own preload stream), and no key is touched by both devices, so
/// each differing key holds one row of exactly `rowBytes` encoded bytes after the sync.
struct E2EPlan {
    /// Which devices write differences.
    enum Sides: String, CaseIterable {
        /// Device a alone.
        case one
        /// Both devices, half each.
        case both
    }

    /// The stream of the rows device a inserts as differences.
    static let insertStreamA: UInt64 = 3
    /// The stream of the rows device b inserts as differences.
    static let insertStreamB: UInt64 = 4
    /// The variant of a difference's edit body.
    static let editVariant: UInt64 = 9

    /// The preloaded rows.
    let rows: Int
    /// The differences written.
    let differences: Int
    /// The encoded size of every row.
    let rowBytes: Int
    /// The seed of keys and bodies.
    let seed: UInt64
    /// New rows device a inserts.
    let insertsOnA: Int
    /// New rows device b inserts.
    let insertsOnB: Int
    /// Preloaded rows device a edits.
    let editsOnA: Int
    /// Preloaded rows device b edits.
    let editsOnB: Int

    /// The plan of `differences` over `rows` preloaded rows on `sides`.
    init(rows: Int, differences: Int, rowBytes: Int, seed: UInt64, sides: Sides) {
        self.rows = rows
        self.differences = differences
        self.rowBytes = rowBytes
        self.seed = seed
        let edits = differences / 3
        let inserts = differences - edits
        switch sides {
        case .one:
            (insertsOnA, insertsOnB, editsOnA, editsOnB) = (inserts, 0, edits, 0)
        case .both:
            (insertsOnA, insertsOnB, editsOnA, editsOnB) = ((inserts + 1) / 2, inserts / 2, (edits + 1) / 2, edits / 2)
        }
    }

    /// The first preloaded row number a difference edits, in each device's own preload stream.
    var editBase: Int { rows / 5 }

    /// The `bench-rows` commands of device a (`forA`) or b, in order.
    func commands(forA: Bool) -> [String] {
        let inserts = forA ? insertsOnA : insertsOnB
        let edits = forA ? editsOnA : editsOnB
        let insertStream = forA ? Self.insertStreamA : Self.insertStreamB
        let editStream = forA ? E2EPreload.streamA : E2EPreload.streamB
        var lines: [String] = []
        if inserts > 0 { lines.append("bench-rows insert \(seed) \(insertStream) 0 \(inserts) \(rowBytes) 0") }
        if edits > 0 { lines.append("bench-rows edit \(seed) \(editStream) \(editBase) \(edits) \(rowBytes) \(Self.editVariant)") }
        return lines
    }

    /// The keys device a (`forA`) or b changes.
    func keys(forA: Bool) -> [[UInt8]] {
        let inserts = forA ? insertsOnA : insertsOnB
        let edits = forA ? editsOnA : editsOnB
        let insertStream = forA ? Self.insertStreamA : Self.insertStreamB
        let editStream = forA ? E2EPreload.streamA : E2EPreload.streamB
        return (0..<inserts).map { BenchRowsWriter.key(seed: seed, stream: insertStream, index: $0) }
            + (editBase..<(editBase + edits)).map { BenchRowsWriter.key(seed: seed, stream: editStream, index: $0) }
    }

    /// The changed row bytes, the floor a point's bytes are divided by: D rows of `rowBytes`
    /// encoded bytes each (the in-memory bench's `row_bytes`: the differing rows' encodings once).
    var changedRowBytes: Int { differences * rowBytes }
}
