import SyncKernel

/// Reads a snapshot's plaintext (`SnapshotFormat`) into a store, insert-if-absent, in bounded
/// transactions.
///
/// Invariants: the header must come first and name the store's own schema
/// (`schemaMismatch` otherwise, before any page is read); each page is decoded by the frame
/// decoder with this device's account (`foreignAccount` for a page naming another), must be a
/// `reconcile_resp` of the store's schema and namespaces carrying only rows and delete versions
/// (`malformedSnapshot` otherwise), and is imported through `KernelStore.importAbsent`: a key the
/// store holds anything under is left alone, so a second import of the same snapshot changes
/// nothing. Pages are imported in transactions of about `rowsPerTransaction` rows and deletes,
/// so memory and a transaction's size stay bounded; a failure stops the import (what committed
/// before stays: every key of it whole, each valid). `finish()` requires the trailer, with counts
/// equal to what was read, and nothing after it. `shouldStop` is asked before each page is read
/// and before each page is written: once it answers true the import throws `snapshotStopped`,
/// rolling back the transaction under way (what committed before stays). Not `Sendable`: it
/// writes the store its owner uses.
public struct SnapshotImporter {
    private let store: any SnapshotImportTarget
    private let account: [UInt8]
    private let rowsPerTransaction: Int
    private let shouldStop: () -> Bool
    private var parser = SnapshotRecordParser()
    private var headerSeen = false
    private var trailerSeen = false
    private var pending: [ReconcileResponse] = []
    private var pendingItems = 0
    /// Pages read so far.
    public private(set) var pages: Int64 = 0
    /// Rows read so far (imported or not).
    public private(set) var rows: Int64 = 0
    /// Delete versions read so far.
    public private(set) var deletes: Int64 = 0
    /// What the committed transactions changed.
    public private(set) var outcome = SnapshotImportOutcome()
    /// Time spent decoding pages and writing them.
    public private(set) var importTime: Duration = .zero

    /// An importer into `store` for `account` (this device's userIDHash), committing about every
    /// `rowsPerTransaction` rows and deletes (at least 1), stopping once `shouldStop` answers true.
    public init(store: KernelStore, account: [UInt8], rowsPerTransaction: Int = 20_000,
                shouldStop: @escaping () -> Bool = { false }) {
        self.init(target: store, account: account, rowsPerTransaction: rowsPerTransaction, shouldStop: shouldStop)
    }

    /// An importer into `target`, as `init(store:account:rowsPerTransaction:shouldStop:)`.
    package init(target: any SnapshotImportTarget, account: [UInt8], rowsPerTransaction: Int = 20_000,
                 shouldStop: @escaping () -> Bool = { false }) {
        self.store = target
        self.account = account
        self.rowsPerTransaction = max(1, rowsPerTransaction)
        self.shouldStop = shouldStop
    }

    /// Reads the next piece of plaintext, importing every page it completes once enough are
    /// pending.
    public nonisolated(nonsending) mutating func consume(_ piece: [UInt8]) async throws {
        let started = ContinuousClock.now
        defer { importTime += started.duration(to: .now) }
        parser.feed(piece)
        while let record = try parser.nextRecord() {
            guard !shouldStop() else { throw SyncKernelError(.snapshotStopped, "the import stopped with its device") }
            guard !trailerSeen else { throw SnapshotTransferError(.malformedSnapshot, "a record after the trailer") }
            switch record.type {
            case .header:
                guard !headerSeen else { throw SnapshotTransferError(.malformedSnapshot, "a second header") }
                guard try SnapshotFormat.schema(ofHeader: record.payload) == store.namespaces.schema else {
                    throw SyncKernelError(.schemaMismatch, "a snapshot of another schema")
                }
                headerSeen = true
            case .page:
                guard headerSeen else { throw SnapshotTransferError(.malformedSnapshot, "a page before the header") }
                try await read(page: record.payload)
            case .trailer:
                guard headerSeen else { throw SnapshotTransferError(.malformedSnapshot, "a trailer before the header") }
                let counts = try SnapshotFormat.counts(ofTrailer: record.payload)
                guard counts == (UInt64(pages), UInt64(rows), UInt64(deletes)) else {
                    throw SnapshotTransferError(.malformedSnapshot, "the trailer's counts differ from the pages read")
                }
                trailerSeen = true
            }
        }
    }

    /// Imports what is pending and checks the snapshot ended with its trailer; returns what the
    /// whole import changed.
    public nonisolated(nonsending) mutating func finish() async throws -> SnapshotImportOutcome {
        let started = ContinuousClock.now
        defer { importTime += started.duration(to: .now) }
        guard trailerSeen, !parser.holdsPartialRecord else { throw SnapshotTransferError(.malformedSnapshot, "the snapshot has no trailer") }
        try await flush()
        return outcome
    }

    /// Decodes a page, checks it, and imports the pending pages once they hold enough.
    private nonisolated(nonsending) mutating func read(page payload: [UInt8]) async throws {
        let frame = try SyncFrame(decoding: payload, account: account)
        guard frame.schema == store.namespaces.schema else { throw SyncKernelError(.schemaMismatch, "a page of another schema") }
        guard case .reconcileResponse(let response) = frame.body, response.listings.isEmpty, response.want.isEmpty,
              !response.isFinal, store.namespaces.names.contains(response.namespace) else {
            throw SnapshotTransferError(.malformedSnapshot, "a page that is not rows and deletes of this store's namespaces")
        }
        pages += 1
        rows += Int64(response.rows.count)
        deletes += Int64(response.tombstones.count)
        pending.append(response)
        pendingItems += response.rows.count + response.tombstones.count
        if pendingItems >= rowsPerTransaction { try await flush() }
    }

    /// Imports the pending pages in one transaction.
    private nonisolated(nonsending) mutating func flush() async throws {
        guard !pending.isEmpty else { return }
        outcome = outcome.combined(with: try await store.importAbsent(pending, shouldStop: shouldStop))
        pending.removeAll(keepingCapacity: true)
        pendingItems = 0
    }
}
