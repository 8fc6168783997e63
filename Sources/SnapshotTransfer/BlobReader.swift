import SyncKernel

/// A blob being read from a blob store, piece by piece.
///
/// ## Implementation requirements
/// - `size` is the blob's size as the store holds it, known before the first read (from the
///   file or the manifest), so a reader checks it against what it expects before downloading.
/// - The pieces together are exactly `size` bytes, or `next()` throws (`blobStoreFailed` for a
///   blob cut short or grown, `blobNotFound` for one removed while it was read).
public protocol BlobReader: ByteSource {
    /// The blob's size in bytes.
    var size: Int64 { get }
}
