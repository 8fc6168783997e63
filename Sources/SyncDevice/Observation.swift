import SyncKernel

/// A query over one namespace observed as an `AsyncSequence` (`SyncDevice.observe`): its value
/// now, then again after every commit that changed it, local or merged.
///
/// Invariants: the first element is the query's value when the iteration first reads (once the
/// store exists); each later element is the value after a commit that touched the query's
/// `ObservedRegion` and changed the value (`==`): never the same value twice in a row, and never
/// a value no commit produced; commits that arrive while the consumer is busy are coalesced into
/// the value after the last of them (as GRDB's `ValueObservation` does), so no change of the
/// value is lost from the end state; the value and the change-log position it reflects are read
/// in one read transaction, so no commit falls between them. An iteration ends (nil) when its
/// task is cancelled or the device is released, and throws the query's or a read's error but
/// `notAStore` (no store yet: it waits for the first commit).
public struct Observation<N: SyncNamespace, Value: Sendable & Equatable>: AsyncSequence, Sendable {
    /// The query's value.
    public typealias Element = Value

    private let device: SyncDevice
    private let commits: AsyncStream<Void>
    private let region: ObservedRegion
    private let query: @Sendable (NamespaceReader<N>) throws(SyncKernelError) -> Value

    init(device: SyncDevice, commits: AsyncStream<Void>, region: ObservedRegion,
         query: @escaping @Sendable (NamespaceReader<N>) throws(SyncKernelError) -> Value) {
        self.device = device
        self.commits = commits
        self.region = region
        self.query = query
    }

    /// An iteration: the value now first.
    public func makeAsyncIterator() -> Iterator {
        Iterator(device: device, commits: commits.makeAsyncIterator(), region: region, query: query)
    }

    /// One iteration of the observation.
    public struct Iterator: AsyncIteratorProtocol {
        private let device: SyncDevice
        private var commits: AsyncStream<Void>.Iterator
        private let region: ObservedRegion
        private let query: @Sendable (NamespaceReader<N>) throws(SyncKernelError) -> Value
        /// The last value delivered and the change-log position it reflects; nil before the first.
        private var last: (value: Value, cursor: UInt64)?

        init(device: SyncDevice, commits: AsyncStream<Void>.Iterator, region: ObservedRegion,
             query: @escaping @Sendable (NamespaceReader<N>) throws(SyncKernelError) -> Value) {
            self.device = device
            self.commits = commits
            self.region = region
            self.query = query
        }

        /// The value now (first), then the next value a commit makes.
        public mutating func next() async throws -> Value? {
            while !Task.isCancelled {
                if let read = try await poll() {
                    let previous = last?.value
                    if let value = read.value {
                        last = (value, read.cursor)
                        if previous != value { return value }
                    } else if let previous {
                        last = (previous, read.cursor)
                    }
                }
                guard await commits.next() != nil else { return nil }
            }
            return nil
        }

        /// In one read: the change-log position now and the query's value, run only first or when
        /// a change since the last value touched the region (nil value otherwise); nil while there
        /// is no store.
        private func poll() async throws(SyncKernelError) -> (value: Value?, cursor: UInt64)? {
            let (region, query, seen) = (region, query, last?.cursor)
            do {
                return try await device.read(N.self) { reader throws(SyncKernelError) -> (value: Value?, cursor: UInt64) in
                    let cursor = try reader.lastChange()
                    if let seen, try !reader.hasChanges(in: region, after: seen) { return (nil, cursor) }
                    return (try query(reader), cursor)
                }
            } catch {
                guard error.code == .notAStore else { throw error }
                return nil
            }
        }
    }
}
