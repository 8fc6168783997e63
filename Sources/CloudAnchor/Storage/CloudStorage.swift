import Foundation

/// A cloud storage the engine backs files up to and restores them from.
///
/// Invariant: the storage is the source of truth; the engine's state file only caches it.
///
/// ## Implementation requirements
/// - Every failure that comes from the cloud or the local disk is thrown as a `CloudError`,
///   mapped by the backend itself (see the error mapping table in `docs/cloud-anchor.md`).
///   Errors of other types are treated by the engine as fatal and passed through unchanged.
/// - `list()` returns every stored file below the storage root, recursively, with paths relative
///   to the root; it never returns the backend's own bookkeeping files.
/// - `writeBytes` and `writeFile` replace the file as a whole: a reader sees the old content or
///   the new one, never a mix. They create missing parent folders. The returned `RemoteFile`
///   describes what was stored.
/// - `readBytes` and `downloadFile` of an absent path throw `CloudError.notFound`.
///   `downloadFile` writes the complete content to `localURL`, replacing a file already there.
/// - `delete` of an absent path succeeds.
/// - `prefetch` is a hint that never throws and may do nothing.
/// - `identityKey()` returns a key that names the account or drive, or `nil` when the storage
///   has none (the engine then pins the marker's `remoteId`).
/// - `acquireLease` grants the one writer slot to one claimant at a time (a claim under the token
///   of a holder that was killed is granted: it is that holder's successor); `renewLease` extends a
///   lease its holder still has, answering `.held` when it was lost; `releaseLease` never
///   throws. The defaults keep a `LeaseRecord` in `cloudanchor.lease` (`FileLease`); backends
///   with an atomic lock override them.
/// - `removeOrphans` removes what killed writes of this backend left (temporary uploads) and is
///   called only by a lease holder; the default removes nothing.
/// - `changes(since:)` answers what changed since a checkpoint the storage handed out, or the
///   whole listing (`isComplete`) for `nil`; a checkpoint it can no longer serve (expired, its
///   zone missing or deleted) throws `CloudError.changeTokenExpired`. The default is the whole
///   `list()` with no checkpoint (a storage without a change feed).
public protocol CloudStorage: Sendable {
    /// Lists every file the storage holds.
    func list() async throws -> [RemoteFile]
    /// The key naming the account behind this storage, or `nil` when the storage has none.
    func identityKey() async throws -> String?
    /// Reads a whole file.
    func readBytes(_ path: String) async throws -> Data
    /// Stores `data` as the whole content of `path`.
    func writeBytes(_ path: String, _ data: Data) async throws -> RemoteFile
    /// Stores the content of the local file at `localURL` as `path`.
    func writeFile(_ path: String, from localURL: URL) async throws -> RemoteFile
    /// Downloads `path` into the local file `localURL`.
    func downloadFile(_ path: String, to localURL: URL) async throws
    /// Removes `path`; removing an absent path succeeds.
    func delete(_ path: String) async throws
    /// Hints that `paths` will be downloaded soon.
    func prefetch(_ paths: [String]) async
    /// Claims the storage's one writer slot.
    func acquireLease(_ claim: LeaseClaim) async throws -> LeaseAnswer
    /// Extends `lease` for `claim.duration` from `claim.now`.
    func renewLease(_ lease: RemoteLease, for claim: LeaseClaim) async throws -> LeaseAnswer
    /// Gives `lease` up.
    func releaseLease(_ lease: RemoteLease) async
    /// Removes what killed writes left behind; returns the names removed.
    func removeOrphans() async throws -> [String]
    /// What changed since `checkpoint` (everything for `nil`).
    func changes(since checkpoint: String?) async throws -> RemoteChanges
}

extension CloudStorage {
    /// The file lease (`FileLease`).
    public func acquireLease(_ claim: LeaseClaim) async throws -> LeaseAnswer {
        try await FileLease(storage: self).acquire(claim)
    }

    /// Claims again under the same token (`FileLease`).
    public func renewLease(_ lease: RemoteLease, for claim: LeaseClaim) async throws -> LeaseAnswer {
        try await FileLease(storage: self).acquire(claim)
    }

    /// Removes the lease record when it is still `lease`'s.
    public func releaseLease(_ lease: RemoteLease) async {
        await FileLease(storage: self).release(lease)
    }

    /// Nothing to remove.
    public func removeOrphans() async throws -> [String] {
        []
    }

    /// The whole listing, with no checkpoint.
    public func changes(since checkpoint: String?) async throws -> RemoteChanges {
        RemoteChanges(isComplete: true, changed: try await list())
    }
}
