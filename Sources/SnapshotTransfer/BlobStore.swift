import SyncKernel

/// Where a sealed snapshot waits for its requester: stored by a sibling under a fresh random id,
/// fetched by that id alone (the id is the capability; no account is needed), removed when its
/// time to live runs out.
///
/// ## Implementation requirements
/// - `put` reads `source` to its end and stores the bytes under a fresh `BlobID`, or stores
///   nothing (a blob that failed part way, for any reason, is removed before the call throws;
///   the source's own error is rethrown as it is).
/// - `open` finds a whole blob stored by `put` and not yet expired or deleted; otherwise it
///   throws `blobNotFound`. An expired blob is never returned.
/// - Blobs expire `timeToLive` after they were stored; `removeExpired` removes those that did
///   (a store whose server expires them itself may remove none). `delete` is idempotent.
/// - Every call blocks until done (files, a server): a host calls them off its own loop.
/// - Store failures throw `blobStoreFailed`; nothing is printed, and errors carry no blob bytes.
public protocol BlobStore: Sendable {
    /// How long a blob is kept after it is stored.
    var timeToLive: Duration { get }

    /// Stores everything `source` yields under a fresh id and returns it.
    func put<Source: ByteSource>(_ source: inout Source) throws -> BlobID

    /// Opens the blob stored under `id` for reading.
    func open(_ id: BlobID) throws -> any BlobReader

    /// Removes the blob stored under `id`, if any.
    func delete(_ id: BlobID) throws

    /// Removes every blob whose time to live ran out; returns how many it removed.
    @discardableResult
    func removeExpired() throws -> Int
}
