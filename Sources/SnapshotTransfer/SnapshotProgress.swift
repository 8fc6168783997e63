/// How far a snapshot transfer got, for a progress bar or a UI event.
///
/// Invariant: within one phase, `bytes` and `rows` never go down; `totalBytes` is known once the
/// offer is (the requester's phases) and nil while a sibling exports.
public struct SnapshotProgress: Sendable, Hashable {
    /// The step under way.
    public enum Phase: String, Sendable, Hashable {
        /// A sibling reads its store, seals and uploads (bytes: sealed bytes handed to the store).
        case exporting
        /// The requester fetches the blob, hashing it (bytes: bytes fetched).
        case downloading
        /// The requester authenticates every chunk before importing (bytes: sealed bytes checked).
        case verifying
        /// The requester decrypts and imports (bytes: sealed bytes read; rows: rows read).
        case importing
    }

    /// The step.
    public let phase: Phase
    /// Bytes done in this phase.
    public let bytes: Int64
    /// The bytes the phase will take in all, when known.
    public let totalBytes: Int64?
    /// Rows exported or read so far.
    public let rows: Int64

    /// A progress report.
    public init(phase: Phase, bytes: Int64, totalBytes: Int64?, rows: Int64) {
        self.phase = phase
        self.bytes = bytes
        self.totalBytes = totalBytes
        self.rows = rows
    }
}
