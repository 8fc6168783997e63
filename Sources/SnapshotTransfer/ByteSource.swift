import SyncKernel

/// Bytes read piece by piece, for streams too large to hold whole (a snapshot of a million rows,
/// its sealed blob).
///
/// ## Implementation requirements
/// - `next()` returns the next piece, never an empty one, and nil once at the end (and on every
///   call after); a piece's size is the source's choice, bounded by the source.
/// - A source that throws has failed: the caller stops reading it.
public protocol ByteSource {
    /// The next piece, or nil at the end.
    mutating func next() throws -> [UInt8]?
}
