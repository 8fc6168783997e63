/// One row of the benchmark namespace: a random 16-byte key, an opaque payload sized so the
/// encoded row is about the requested size, and the stamp an edit changes.
///
/// Invariant: every field is hashed, so any edit of the payload or stamp changes the leaf.
public struct BenchRow: Sendable, Hashable {
    /// The row's key: 16 random bytes from the run's seeded generator.
    public var id: [UInt8]
    /// Random bytes standing in for the row's content.
    public var payload: [UInt8]
    /// The change stamp (whole seconds): a local edit moves it.
    public var updatedAt: Int64

    /// Creates a row.
    public init(id: [UInt8], payload: [UInt8], updatedAt: Int64) {
        self.id = id
        self.payload = payload
        self.updatedAt = updatedAt
    }
}
