import Foundation
import SyncKernel

/// The notebook: user-edited notes, merged causally, with bodies that may be offloaded.
///
/// Rule: `.causal`. Notes are edited on any device, so the merge must know whether one edit had
/// seen the other; version vectors decide, never `updatedAt`, which RowClock only watches for
/// change. The leaf commits to the body through its digest, so a note hashes the same whether
/// this device holds the body or only a pointer to it.
public enum NotebookNamespace: SyncNamespace {
    public static let name = "notebook"

    public static let schema = RowSchema<Note>(
        blank: Note(id: [], title: "", body: "", createdAt: .distantPast, updatedAt: .distantPast), key: \.id,
        validate: { note throws(SyncKernelError) in
            guard !note.bodyOffloaded || (note.contentHash != nil && note.body.isEmpty) else {
                throw SyncKernelError(.malformedFrame, "an offloaded note needs a content hash and no body")
            }
        }, [
            .hashed("id", \.id, .bytes(count: 16)),
            .hashed("title", \.title, .text),
            .hashed("body", \.body, .text, leaf: .derived("bodyLeafDigest", .bytes(count: 32), bodyLeafDigest)),
            .excluded("contentHash", \.contentHash, .optional(.bytes(count: 32)), .residency,
                      reason: "the body digest an offloaded note keeps in place of its body; the leaf commits to the body through that digest either way"),
            .hashed("tags", \.tags, .array(.text)),
            .hashed("createdAt", \.createdAt, .date),
            .hashed("updatedAt", \.updatedAt, .date),
            .excluded("bodyOffloaded", \.bodyOffloaded, .bool, .residency,
                      reason: "says whether this device holds the bytes, not what the note says"),
            .excluded("offloadHolderPubkey", \.offloadHolderPubkey, .optional(.bytes()), .residency,
                      reason: "two devices may name different holders of the same content"),
        ])

    public static let mergeRule = MergeRule<Note>.causal(changeStamp: \.updatedAt)

    /// The domain separator of body digests.
    public static let bodyDomain = Array("synckernel.notebook.body".utf8)

    /// The digest of a body: SHA-256 under `bodyDomain` of its UTF-8 bytes.
    public static func bodyDigest(of body: String) -> [UInt8] {
        SHA256.hash(domain: bodyDomain, Array(body.utf8))
    }

    /// The body's contribution to the leaf: the stamped hash when offloaded, else the digest of the body.
    public static func bodyLeafDigest(_ note: Note) -> [UInt8] {
        if note.bodyOffloaded, let contentHash = note.contentHash { return contentHash }
        return bodyDigest(of: note.body)
    }

    /// Keeps a resident body when the winner is a pointer to the same content, and drops the
    /// pointer state; the leaf is unchanged because it commits to the same digest either way.
    public static func adopt(_ incoming: Note, over local: Note?) -> Note {
        guard let local, incoming.bodyOffloaded, !local.bodyOffloaded,
              incoming.contentHash == bodyDigest(of: local.body) else { return incoming }
        var kept = incoming
        kept.body = local.body
        kept.bodyOffloaded = false
        kept.offloadHolderPubkey = nil
        return kept
    }
}
