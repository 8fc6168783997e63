import SyncKernel

/// A blob being read from a blob store, piece by piece.
///
/// ## Implementation requirements
/// - `size` is the blob's size as the store holds it, known before the first read (from the
///   file or the manifest), so a reader checks it against what it expects before downloading.
/// - `nextPiece()` returns the next piece, never an empty one, and nil once at the end (and on
///   every call after). The pieces together are exactly `size` bytes, or it throws
///   (`blobStoreFailed` for a blob cut short or grown, `blobNotFound` for one removed while it
///   was read).
/// - `nextPiece()` is `nonisolated(nonsending)`, as the `BlobStore` calls are: it runs on its
///   caller's executor, so a blocking reader blocks that thread only.
public protocol BlobReader {
    /// The blob's size in bytes.
    var size: Int64 { get }

    /// The next piece, or nil at the end.
    nonisolated(nonsending) mutating func nextPiece() async throws -> [UInt8]?
}
