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
/// - Every call is `async` and `nonisolated(nonsending)`: it runs on its caller's executor (a
///   device calls it from a snapshot worker on a thread of its own, never from the cooperative
///   pool), so an implementation over blocking calls (files, nats.c) blocks that thread only, and
///   one over an asynchronous client (an HTTP session) awaits it.
/// - Store failures throw `blobStoreFailed`; nothing is printed, and errors carry no blob bytes.
public protocol BlobStore: Sendable {
    /// How long a blob is kept after it is stored.
    var timeToLive: Duration { get }

    /// Stores everything `source` yields under a fresh id and returns it.
    nonisolated(nonsending) func put<Source: ByteSource>(_ source: inout Source) async throws -> BlobID

    /// Opens the blob stored under `id` for reading.
    nonisolated(nonsending) func open(_ id: BlobID) async throws -> any BlobReader

    /// Removes the blob stored under `id`, if any.
    nonisolated(nonsending) func delete(_ id: BlobID) async throws

    /// Removes every blob whose time to live ran out; returns how many it removed.
    @discardableResult
    nonisolated(nonsending) func removeExpired() async throws -> Int
}
