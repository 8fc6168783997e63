import SyncKernel

/// A sealed snapshot on its way into a blob store, reporting progress after every piece the
/// store takes.
///
/// Invariant: yields exactly what `sealer` yields, in order, until `shouldStop` says so (then it
/// throws `snapshotStopped` before reading another piece); `progress` is called once per piece,
/// after it was produced, with the sealed bytes and rows so far.
struct MeteredSource: ByteSource {
    /// The sealer being read (its counters and failures, after the put).
    private(set) var sealer: SnapshotSealer<SnapshotExporter>
    private let progress: (SnapshotProgress) -> Void
    private let shouldStop: () -> Bool

    /// A metered reading of `sealer`, reporting to `progress`, stopping once `shouldStop` is true.
    init(sealer: SnapshotSealer<SnapshotExporter>, progress: @escaping (SnapshotProgress) -> Void,
         shouldStop: @escaping () -> Bool) {
        self.sealer = sealer
        self.progress = progress
        self.shouldStop = shouldStop
    }

    mutating func next() throws -> [UInt8]? {
        guard !shouldStop() else { throw SyncKernelError(.snapshotStopped, "the export stopped with its device") }
        guard let piece = try sealer.next() else { return nil }
        progress(SnapshotProgress(phase: .exporting, bytes: sealer.size, totalBytes: nil, rows: sealer.source.rows))
        return piece
    }
}
