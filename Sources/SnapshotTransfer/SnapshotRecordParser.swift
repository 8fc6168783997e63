import SyncKernel

/// Cuts a snapshot's plaintext, given in pieces of any size, into its records.
///
/// Invariants: a record's type and length are checked (`SnapshotFormat.accepts`) as soon as its
/// five-byte head is in, before its payload is awaited, so the buffer never holds more than one
/// record's bound and one piece; `malformedSnapshot` for an unknown type or a length out of bounds.
struct SnapshotRecordParser {
    private var buffer: [UInt8] = []
    private var start = 0

    /// Whether bytes of an unfinished record are held.
    var holdsPartialRecord: Bool { start < buffer.count }

    /// Appends a piece of plaintext.
    mutating func feed(_ piece: [UInt8]) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer += piece
    }

    /// The next whole record, nil until its bytes are all in.
    mutating func nextRecord() throws -> (type: SnapshotFormat.RecordType, payload: [UInt8])? {
        guard buffer.count - start >= SnapshotFormat.recordHeadBytes else { return nil }
        guard let type = SnapshotFormat.RecordType(rawValue: buffer[start]) else {
            throw SnapshotTransferError(.malformedSnapshot, "an unknown record type")
        }
        let length = buffer[start + 1 ..< start + 5].reduce(0) { $0 << 8 | Int($1) }
        guard SnapshotFormat.accepts(type, length: length) else { throw SnapshotTransferError(.malformedSnapshot, "a record length out of bounds") }
        let begin = start + SnapshotFormat.recordHeadBytes
        guard buffer.count - begin >= length else { return nil }
        start = begin + length
        return (type, Array(buffer[begin..<start]))
    }
}
