/// The plug-in point: one kind of synced data, declared once, merged and hashed by the kernel.
///
/// A namespace names itself, says how a row is keyed, which fields its leaf commits to, which
/// fields it leaves out and why, how rows merge, and whether rows carry version vectors. The
/// kernel stores the rows (in a table of the namespace's own, `ns_<name>`), hashes them, ships
/// them and merges them; it never names a namespace.
///
/// ## Implementation requirements
/// - `name` is stable forever: ASCII letters, digits and `_`, unique (ignoring case) in a fleet.
/// - `key(of:)` is the stable cross-device key: the same row has the same key on every device,
///   and no two rows share one. Never a local row id.
/// - `encodeLeaf` writes only fields the merge rule converges, in a fixed order, through the
///   `CanonicalWriter` (dates through `write(_: Date)`, optionals through `writeOptional`). Every
///   other field appears in `excludedFields` with its reason. Bump `leafSchemaVersion` whenever
///   the leaf encoding changes; the schema fingerprint then keeps old and new builds apart.
/// - `encodeRow` / `decodeRow` round-trip every field that travels, and `encodeRow` is
///   deterministic: the same row always yields the same bytes.
/// - `mergeRule` is commutative and idempotent over rows; `.causal` requires
///   `causalMembership == .tracked` and vice versa.
/// - `adopt(_:over:)` may only carry over fields listed in `excludedFields`: it must not change
///   the leaf of the row it returns relative to `incoming`.
/// - `incomingWinsTie` is a strict order that reads no clock; `isDeviceDerived` depends only on
///   the row, and a namespace that uses it lists the marker field as `.deviceDerived`.
public protocol SyncNamespace: Sendable {
    /// The row type this namespace syncs.
    associatedtype Row: Sendable

    /// The namespace's stable name, also its leaf domain separator suffix.
    static var name: String { get }
    /// The version of the leaf encoding; bump it whenever `encodeLeaf` changes.
    static var leafSchemaVersion: Int { get }
    /// Fields kept out of the leaf, each with its reason.
    static var excludedFields: [ExcludedField] { get }
    /// How an incoming row merges into the local copy.
    static var mergeRule: MergeRule<Row> { get }
    /// Whether rows carry version vectors, and the change stamp RowClock watches.
    static var causalMembership: CausalMembership<Row> { get }
    /// How a reconcile compares this namespace (default `.ranges`).
    static var granularity: ReconcileGranularity { get }

    /// The row's stable cross-device key.
    static func key(of row: Row) -> [UInt8]
    /// Writes the hashed fields of `row`, in a fixed order.
    static func encodeLeaf(_ row: Row, into writer: inout CanonicalWriter)
    /// Writes every field of `row` that is stored and shipped, as one CBOR item.
    static func encodeRow(_ row: Row, into writer: inout CanonicalWriter)
    /// Reads a row written by `encodeRow`; throws a typed error on anything else.
    static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> Row
    /// The row to store when `incoming` wins over `local` (default: `incoming` unchanged).
    static func adopt(_ incoming: Row, over local: Row?) -> Row
    /// Between two live rows that causality cannot order, whether `incoming` wins over `local`.
    ///
    /// Must be a deterministic, clock-free strict order (the same answer on every device, and
    /// never true both ways). Default: the greater leaf encoding wins.
    static func incomingWinsTie(_ incoming: Row, over local: Row) -> Bool
    /// Whether `row` is re-derived on each device from a local source of truth (a calendar, a
    /// file system). Device-derived rows are stored but get no leaf, are never shipped, and are
    /// dropped when a sibling ships one, so a stale sibling cannot reintroduce them. Default: never.
    static func isDeviceDerived(_ row: Row) -> Bool
}

extension SyncNamespace {
    /// Range fingerprints by default.
    public static var granularity: ReconcileGranularity { .ranges }

    /// Adopts the incoming row unchanged by default.
    public static func adopt(_ incoming: Row, over local: Row?) -> Row { incoming }

    /// The greater leaf encoding wins a causal tie by default.
    public static func incomingWinsTie(_ incoming: Row, over local: Row) -> Bool {
        leafEncoding(of: local).lexicographicallyPrecedes(leafEncoding(of: incoming))
    }

    /// No row is device-derived by default.
    public static func isDeviceDerived(_ row: Row) -> Bool { false }

    /// The leaf domain separator, `synckernel.state.<name>`.
    public static var leafDomain: [UInt8] { Array("synckernel.state.\(name)".utf8) }

    /// The canonical leaf encoding of `row` (the bytes that are hashed).
    public static func leafEncoding(of row: Row) -> [UInt8] {
        var writer = CanonicalWriter()
        encodeLeaf(row, into: &writer)
        return writer.bytes
    }

    /// The leaf of `row`: its key and SHA-256 over the leaf domain and the leaf encoding.
    public static func leaf(of row: Row) -> Leaf {
        Leaf(key: key(of: row), hash: SHA256.hash(domain: leafDomain, leafEncoding(of: row)))
    }

    /// The row's wire and storage encoding.
    public static func rowEncoding(of row: Row) -> [UInt8] {
        var writer = CanonicalWriter(reservingCapacity: 256)
        encodeRow(row, into: &writer)
        return writer.bytes
    }

    /// Decodes a row from its stored or shipped bytes, under the frame limits.
    public static func decodeRow(bytes: [UInt8]) throws(SyncKernelError) -> Row {
        try decodeRow(CBORReader.decode(bytes))
    }
}
