import SyncKernel

/// A namespace's change feed as an `AsyncSequence` (`SyncDevice.changes(_:after:)`): the
/// committed changes numbered after a cursor, then each later one as it commits.
///
/// Invariants: changes come in number order, each once per iteration (a key changed again
/// before it was read is one change, under its later number); a page of at most `pageChanges`
/// is read only when the consumer has taken the one before, so memory is one page whatever the
/// backlog; the commit subscription is taken when the feed is made, before its first read, so a
/// commit after that is never missed; an iteration ends (nil) when its task is cancelled or the
/// device is released, and throws a read's error but `notAStore` (no store yet: it waits).
public struct ChangeFeed<N: SyncNamespace>: AsyncSequence, Sendable {
    /// One committed change of a key.
    public typealias Element = RowChange<N.Row>

    /// The most changes one read takes.
    public static var pageChanges: Int { 1_000 }

    private let device: SyncDevice
    private let commits: AsyncStream<Void>
    private let cursor: UInt64

    init(device: SyncDevice, commits: AsyncStream<Void>, after cursor: UInt64) {
        self.device = device
        self.commits = commits
        self.cursor = cursor
    }

    /// An iteration from the feed's cursor.
    public func makeAsyncIterator() -> Iterator {
        Iterator(device: device, commits: commits.makeAsyncIterator(), cursor: cursor)
    }

    /// One iteration of the feed.
    public struct Iterator: AsyncIteratorProtocol {
        private let device: SyncDevice
        private var commits: AsyncStream<Void>.Iterator
        private var cursor: UInt64
        private var page: [RowChange<N.Row>] = []
        private var position = 0

        init(device: SyncDevice, commits: AsyncStream<Void>.Iterator, cursor: UInt64) {
            self.device = device
            self.commits = commits
            self.cursor = cursor
        }

        /// The next change: from the page read last, else a new page, else after the next commit.
        public mutating func next() async throws -> RowChange<N.Row>? {
            while !Task.isCancelled {
                if position < page.count {
                    let change = page[position]
                    position += 1
                    cursor = change.cursor
                    return change
                }
                let after = cursor
                do {
                    page = try await device.read(N.self) { reader throws(SyncKernelError) in
                        try reader.changes(after: after, limit: ChangeFeed.pageChanges)
                    }
                } catch where error.code == .notAStore {
                    page = []
                }
                position = 0
                if page.isEmpty {
                    guard await commits.next() != nil else { return nil }
                }
            }
            return nil
        }
    }
}
