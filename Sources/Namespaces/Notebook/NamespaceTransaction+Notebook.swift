import SyncKernel

/// Notebook mutators that must keep the leaf continuous.
extension NamespaceTransaction where N == NotebookNamespace {
    /// Offloads a note's body to `holder`: refuses unless `contentHash` is the digest of the
    /// resident body, then stamps it and clears the body in one save.
    ///
    /// Invariants: the note's leaf is identical before and after (it commits to the digest either
    /// way), and `updatedAt` is left alone, so offloading is not an edit: no vector bump, no
    /// dirty state, no advertisement.
    public func markOffloaded(id: [UInt8], contentHash: [UInt8], holder: [UInt8]) throws(SyncKernelError) {
        guard var note = try row(forKey: id) else { throw SyncKernelError(.namespaceRefused, "no such note") }
        guard !note.bodyOffloaded, NotebookNamespace.bodyDigest(of: note.body) == contentHash else {
            throw SyncKernelError(.namespaceRefused, "content hash does not match the resident body")
        }
        note.contentHash = contentHash
        note.body = ""
        note.bodyOffloaded = true
        note.offloadHolderPubkey = holder
        try save(note)
    }

    /// Brings an offloaded body back: refuses unless `body` hashes to the stamped content hash.
    public func restoreBody(id: [UInt8], body: String) throws(SyncKernelError) {
        guard var note = try row(forKey: id) else { throw SyncKernelError(.namespaceRefused, "no such note") }
        guard note.bodyOffloaded, note.contentHash == NotebookNamespace.bodyDigest(of: body) else {
            throw SyncKernelError(.namespaceRefused, "body does not match the stamped content hash")
        }
        note.body = body
        note.bodyOffloaded = false
        note.offloadHolderPubkey = nil
        try save(note)
    }
}
