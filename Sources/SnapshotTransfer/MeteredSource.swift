import SyncKernel

/// A sealed snapshot on its way into a blob store, reporting progress after every piece the
/// store takes.
///
/// Invariant: yields exactly what `sealer` yields, in order; `progress` is called once per piece,
/// after it was produced, with the sealed bytes and rows so far.
struct MeteredSource: ByteSource {
    /// The sealer being read (its counters and failures, after the put).
    private(set) var sealer: SnapshotSealer<SnapshotExporter>
    private let progress: (SnapshotProgress) -> Void

    /// A metered reading of `sealer`, reporting to `progress`.
    init(sealer: SnapshotSealer<SnapshotExporter>, progress: @escaping (SnapshotProgress) -> Void) {
        self.sealer = sealer
        self.progress = progress
    }

    mutating func next() throws(SyncKernelError) -> [UInt8]? {
        guard let piece = try sealer.next() else { return nil }
        progress(SnapshotProgress(phase: .exporting, bytes: sealer.size, totalBytes: nil, rows: sealer.source.rows))
        return piece
    }
}
