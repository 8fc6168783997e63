/// The contract's prefetch schedule: paths in batches of eight, two batches in flight.
///
/// Invariant: every path is handed to `fetch` exactly once, in order within its batch; no more
/// than `inFlight` batches run at a time; nothing is thrown (a batch's failures are its own).
enum BatchedPrefetch {
    /// Paths per batch (the contract's records per request).
    static let batchSize = 8
    /// Batches at a time (the contract's requests in flight).
    static let inFlight = 2

    /// Runs `fetch` over `paths` in batches of `batchSize`, at most `inFlight` at a time.
    static func run(_ paths: [String], batchSize: Int = batchSize, inFlight: Int = inFlight,
                    fetch: @escaping @Sendable ([String]) async -> Void) async {
        let batches = stride(from: 0, to: paths.count, by: max(batchSize, 1)).map {
            Array(paths[$0..<min($0 + max(batchSize, 1), paths.count)])
        }
        await withTaskGroup(of: Void.self) { group in
            var next = 0
            while next < min(max(inFlight, 1), batches.count) {
                let batch = batches[next]
                group.addTask { await fetch(batch) }
                next += 1
            }
            while await group.next() != nil {
                guard next < batches.count else { continue }
                let batch = batches[next]
                group.addTask { await fetch(batch) }
                next += 1
            }
        }
    }
}
