import Foundation

/// One declared field of a row: its name, where it lives, how it is written, and whether the
/// leaf commits to it.
///
/// A namespace lists its fields once, in `RowSchema`; from that list the kernel derives the row
/// encoding (every field, in order), the leaf encoding (the hashed fields), the exclusion list,
/// the schema fingerprint, the default `adopt` and the `.join` merge. Build fields with
/// `.hashed`, `.excluded`, `.group` and (inside groups and records) `.member`.
///
/// Invariant: `name` is the name of the stored property the key path reaches (the schema checks
/// this against the row type), so an exclusion can never name a field that does not exist.
public struct Field<Row: Sendable>: Sendable {
    /// The stored property's name.
    public let name: String
    /// What the field is to the leaf.
    package let role: FieldRole
    /// The codec's wire shape.
    package let shape: CodecShape
    /// The names of the stored properties this field covers (one, or a group's members).
    package let properties: [String]
    /// The key path the field reaches (nil for a group).
    package let path: (any AnyKeyPath & Sendable)?
    /// The name of the field's merge, when it declares one.
    package let mergeName: String?
    /// What kind of merge the field declares (nil when none).
    package let mergeKind: MergeKind?
    /// The name of a derived leaf contribution, when the leaf holds one.
    package let leafName: String?
    /// Declaration mistakes found while building the field.
    package let problems: [String]
    /// Writes the field's row item.
    package let writeRow: @Sendable (Row, inout CanonicalWriter) -> Void
    /// Writes the field's leaf item in a `.sequence` leaf.
    package let writeLeaf: @Sendable (Row, inout CanonicalWriter) -> Void
    /// Reads the field's row item into a row.
    package let read: @Sendable (CBORValue, inout Row) throws(SyncKernelError) -> Void
    /// Copies the field's value from one row into another.
    package let copy: @Sendable (_ source: Row, _ target: inout Row) -> Void
    /// Under `.join`: sets the field of `target` to the join of both sides' values.
    package let merge: (@Sendable (_ local: Row, _ incoming: Row, _ target: inout Row) -> Void)?
    /// Whether both sides hold values the field's merge calls a disagreement (nil: never).
    package let disagrees: (@Sendable (_ local: Row, _ incoming: Row) -> Bool)?
    /// The row with sub-second noise added to every date the field holds (which must move no encoding).
    package let perturb: @Sendable (Row) -> Row
    /// Throws exactly when the field's row item would not read back (its codec's `check`); nil
    /// when only a round trip can tell: a codec with no check, or a leaf derived from the row.
    package let check: (@Sendable (Row) throws(SyncKernelError) -> Void)?

    /// The check of every field of `fields` in order, nil when one of them has none.
    package static func check(of fields: [Field]) -> (@Sendable (Row) throws(SyncKernelError) -> Void)? {
        var collected: [@Sendable (Row) throws(SyncKernelError) -> Void] = []
        for field in fields {
            guard let check = field.check else { return nil }
            collected.append(check)
        }
        let checks = collected
        return { row throws(SyncKernelError) in
            for check in checks { try check(row) }
        }
    }

    /// Reads `items` into `row` through `readers`, the first item with the first reader and so on
    /// (as far as the shorter of the two goes), by index: a generic `zip` over the fields costs
    /// more per item than the read itself.
    package static func read(_ items: ArraySlice<CBORValue>,
                             with readers: [@Sendable (CBORValue, inout Row) throws(SyncKernelError) -> Void],
                             into row: inout Row) throws(SyncKernelError) {
        var position = items.startIndex
        for reader in readers {
            guard position < items.endIndex else { return }
            try reader(items[position], &row)
            position += 1
        }
    }
}

extension Field {
    /// A field the leaf commits to. Under `.join`, `merge` says how two values converge (required
    /// there, refused under the other rules, where the row is the unit of merge).
    public static func hashed<Value: Sendable>(_ name: String, _ path: WritableKeyPath<Row, Value> & Sendable,
                                               _ codec: FieldCodec<Value>, merge: FieldMerge<Value>? = nil) -> Field {
        make(name, path, codec, role: .hashed, merge: merge, leaf: nil)
    }

    /// A hashed field whose leaf item is derived from the row rather than the field's own value
    /// (the notebook hashes a body through its digest, so an offloaded copy hashes the same).
    public static func hashed<Value: Sendable>(_ name: String, _ path: WritableKeyPath<Row, Value> & Sendable,
                                               _ codec: FieldCodec<Value>, leaf: LeafContribution<Row>,
                                               merge: FieldMerge<Value>? = nil) -> Field {
        make(name, path, codec, role: .hashed, merge: merge, leaf: leaf)
    }

    /// A field kept out of the leaf: stored and shipped, never hashed, never merged.
    ///
    /// `category` says why (per device, residency, local identifier, device-derived marker) and
    /// `reason` is the sentence a reviewer reads. Per-device and local-identifier fields are kept
    /// from the local row when a sibling's row wins (see `SyncNamespace.adopt`).
    public static func excluded<Value: Sendable>(_ name: String, _ path: WritableKeyPath<Row, Value> & Sendable,
                                                 _ codec: FieldCodec<Value>, _ category: ExcludedField.Category,
                                                 reason: String) -> Field {
        make(name, path, codec, role: .excluded(category, reason: reason), merge: nil, leaf: nil)
    }

    /// A member of a `.group` or of a `.record` codec.
    public static func member<Value: Sendable>(_ name: String, _ path: WritableKeyPath<Row, Value> & Sendable,
                                               _ codec: FieldCodec<Value>) -> Field {
        make(name, path, codec, role: .member, merge: nil, leaf: nil)
    }

    /// Several stored properties hashed and merged as one unit, written as a nested array of the
    /// members in order (content fixed when a message is sent, say).
    public static func group(_ name: String, _ members: [Field], merge: FieldMerge<Row>? = nil) -> Field {
        let count = members.count
        let readers = members.map(\.read)
        let writeRow: @Sendable (Row, inout CanonicalWriter) -> Void = { row, writer in
            writer.writeArrayHeader(count: count)
            for member in members { member.writeRow(row, &writer) }
        }
        let copyAll: @Sendable (Row, inout Row) -> Void = { source, target in
            for member in members { member.copy(source, &target) }
        }
        var problems = members.flatMap(\.problems)
        if members.contains(where: { $0.role != .member }) { problems.append("group \(name) holds a field that is not a .member") }
        let merged: (@Sendable (Row, Row, inout Row) -> Void)? = merge.map { merge in
            switch merge.strategy {
            case .greaterEncoding, .register:
                return { local, incoming, target in
                    var (mine, theirs) = (CanonicalWriter(), CanonicalWriter())
                    writeRow(local, &mine)
                    writeRow(incoming, &theirs)
                    copyAll(mine.bytes.lexicographicallyPrecedes(theirs.bytes) ? incoming : local, &target)
                }
            case .join(let join):
                return { local, incoming, target in copyAll(join(local, incoming), &target) }
            }
        }
        return Field(name: name, role: .hashed, shape: .record(members.map(\.shape)), properties: members.flatMap(\.properties),
                     path: nil, mergeName: merge?.name, mergeKind: merge?.kind, leafName: nil, problems: problems,
                     writeRow: writeRow, writeLeaf: writeRow,
                     read: { item, row throws(SyncKernelError) in
                         let items = try item.array()
                         guard items.count == count else { throw SyncKernelError(.malformedFrame, "group \(name) has \(count) members") }
                         try read(items[...], with: readers, into: &row)
                     },
                     copy: copyAll, merge: merged, disagrees: nil, perturb: { row in members.reduce(row) { $1.perturb($0) } },
                     check: check(of: members))
    }

    private static func make<Value: Sendable>(_ name: String, _ path: WritableKeyPath<Row, Value> & Sendable,
                                              _ codec: FieldCodec<Value>, role: FieldRole, merge: FieldMerge<Value>?,
                                              leaf: LeafContribution<Row>?) -> Field {
        let merged: (@Sendable (Row, Row, inout Row) -> Void)? = merge.map { merge in
            switch merge.strategy {
            case .join(let join):
                return { local, incoming, target in target[keyPath: path] = join(local[keyPath: path], incoming[keyPath: path]) }
            case .greaterEncoding, .register:
                return { local, incoming, target in
                    let (mine, theirs) = (local[keyPath: path], incoming[keyPath: path])
                    target[keyPath: path] = codec.encoded(mine).lexicographicallyPrecedes(codec.encoded(theirs)) ? theirs : mine
                }
            }
        }
        var disagrees: (@Sendable (Row, Row) -> Bool)?
        if let disagreement = merge?.disagreement {
            disagrees = { local, incoming in disagreement(local[keyPath: path], incoming[keyPath: path]) }
        }
        let perturb: @Sendable (Row) -> Row = { row in
            var noisy = row
            noisy[keyPath: path] = codec.perturb(row[keyPath: path])
            return noisy
        }
        let writeRow: @Sendable (Row, inout CanonicalWriter) -> Void = { row, writer in codec.write(row[keyPath: path], &writer) }
        let writeOwnLeaf: @Sendable (Row, inout CanonicalWriter) -> Void = { row, writer in
            codec.writeLeafItem(row[keyPath: path], &writer)
        }
        let read: @Sendable (CBORValue, inout Row) throws(SyncKernelError) -> Void = { item, row throws(SyncKernelError) in
            row[keyPath: path] = try codec.read(item)
        }
        let copy: @Sendable (Row, inout Row) -> Void = { source, target in target[keyPath: path] = source[keyPath: path] }
        var check: (@Sendable (Row) throws(SyncKernelError) -> Void)?
        if leaf == nil, let valueCheck = codec.check {
            check = { row throws(SyncKernelError) in try valueCheck(row[keyPath: path]) }
        }
        return Field(name: name, role: role, shape: codec.shape, properties: [name], path: path, mergeName: merge?.name,
                     mergeKind: merge?.kind, leafName: leaf?.name, problems: codec.problems, writeRow: writeRow,
                     writeLeaf: leaf?.write ?? writeOwnLeaf, read: read, copy: copy, merge: merged, disagrees: disagrees,
                     perturb: perturb, check: check)
    }
}
