import SyncKernel

/// The plaintext of a snapshot: a sequence of records, each a type byte, a 4-byte big-endian
/// length and that many payload bytes.
///
///     type 1  header   15 bytes: magic "SKSNAP", version (1), the schema fingerprint (8 bytes)
///     type 2  page     a `reconcile_resp` `sync_delta` frame (account, schema, compact vectors)
///                      carrying one namespace's rows and delete versions of consecutive keys,
///                      every key's share whole (`SnapshotPage`); no listings, wanted keys or
///                      final mark
///     type 3  trailer  24 bytes: pages, rows and delete versions in the snapshot (8 bytes each)
///
/// Exactly one header first, any number of pages, exactly one trailer last, nothing after it.
///
/// Invariants: a page reuses the ship path's frame codec, so it is read by the same bounded,
/// fuzzed decoder as any `reconcile_resp`, under the same `DecodeBudget`; every record's length
/// is checked against its type's bound (`maxRecordBytes` for a page) before its bytes are awaited.
package enum SnapshotFormat {
    /// The magic of the header record.
    package static let magic: [UInt8] = Array("SKSNAP".utf8)
    /// The format version.
    package static let version: UInt8 = 1
    /// Bytes of a record's type and length.
    package static let recordHeadBytes = 5
    /// Bytes of the header record's payload.
    package static let headerBytes = 15
    /// Bytes of the trailer record's payload.
    package static let trailerBytes = 24
    /// The longest page: the longest frame.
    package static let maxRecordBytes = SyncFrame.maxFrameBytes

    /// Record types.
    package enum RecordType: UInt8, Sendable {
        /// The header.
        case header = 1
        /// A page.
        case page = 2
        /// The trailer.
        case trailer = 3
    }

    /// A record of `type` around `payload`.
    static func record(_ type: RecordType, _ payload: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = [type.rawValue]
        bytes.reserveCapacity(recordHeadBytes + payload.count)
        bytes.appendBigEndian(UInt64(payload.count), width: 4)
        return bytes + payload
    }

    /// The header payload for `schema`.
    static func header(schema: SchemaFingerprint) -> [UInt8] {
        var bytes = magic + [version]
        bytes.appendBigEndian(schema.value, width: 8)
        return bytes
    }

    /// The schema a header payload names, after checking its magic and version.
    static func schema(ofHeader payload: [UInt8]) throws -> SchemaFingerprint {
        var reader = FixedLayoutReader(payload)
        guard try reader.read(magic.count) == magic, try reader.byte() == version else {
            throw SnapshotTransferError(.malformedSnapshot, "not a snapshot header of this version")
        }
        let schema = SchemaFingerprint(value: try reader.unsigned(width: 8))
        try reader.finish()
        return schema
    }

    /// The trailer payload for the counts.
    static func trailer(pages: Int64, rows: Int64, deletes: Int64) -> [UInt8] {
        var bytes: [UInt8] = []
        for count in [pages, rows, deletes] { bytes.appendBigEndian(UInt64(count), width: 8) }
        return bytes
    }

    /// The counts a trailer payload names.
    static func counts(ofTrailer payload: [UInt8]) throws -> (pages: UInt64, rows: UInt64, deletes: UInt64) {
        var reader = FixedLayoutReader(payload)
        let counts = (try reader.unsigned(width: 8), try reader.unsigned(width: 8), try reader.unsigned(width: 8))
        try reader.finish()
        return counts
    }

    /// Whether a record of `type` may be `length` bytes long.
    static func accepts(_ type: RecordType, length: Int) -> Bool {
        switch type {
        case .header: length == headerBytes
        case .page: length > 0 && length <= maxRecordBytes
        case .trailer: length == trailerBytes
        }
    }
}
