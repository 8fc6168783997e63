import Foundation

/// The lease any storage can keep with plain files: `cloudanchor.lease` holds a `LeaseRecord`,
/// written and then read back.
///
/// Invariant: a claim is granted only when no unexpired record of another token is there and
/// the record read back after writing is the claimant's. Without an atomic create the storage
/// cannot rule out two claimants writing in the same instant (the later write wins the read-back
/// of both only if it lands between the other's write and read), so backends with a real lock
/// (a folder's `flock`, WebDAV `LOCK`) use that instead; this is the fallback.
struct FileLease: Sendable {
    let storage: any CloudStorage

    /// Claims the slot.
    func acquire(_ claim: LeaseClaim) async throws -> LeaseAnswer {
        if let current = try await current(), current.token != claim.token, current.expiresAt > claim.now {
            return .held(owner: current.owner, until: current.expiresAt)
        }
        let record = LeaseRecord(claim)
        _ = try await storage.writeBytes(LeaseRecord.path, record.encoded)
        guard let readBack = try await current(), readBack.token == claim.token else {
            let winner = try await current()
            return .held(owner: winner?.owner ?? "another writer", until: winner?.expiresAt)
        }
        return .granted(RemoteLease(owner: claim.owner, token: claim.token, expiresAt: record.expiresAt))
    }

    /// Removes the record when it is still `lease`'s.
    func release(_ lease: RemoteLease) async {
        guard let current = try? await current(), current.token == lease.token else { return }
        try? await storage.delete(LeaseRecord.path)
    }

    private func current() async throws -> LeaseRecord? {
        do {
            return LeaseRecord.decode(try await storage.readBytes(LeaseRecord.path))
        } catch CloudError.notFound {
            return nil
        }
    }
}
