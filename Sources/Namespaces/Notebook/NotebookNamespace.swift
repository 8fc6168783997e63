import Foundation
import SyncKernel

/// The notebook: user-edited notes, merged causally, with bodies that may be offloaded.
///
/// Rule: `.causal`. Notes are edited on any device, so the merge must know whether one edit had
/// seen the other; version vectors decide, never `updatedAt`, which RowClock only watches for
/// change. The leaf commits to the body through its digest, so a note hashes the same whether
/// this device holds the body or only a pointer to it.
public enum NotebookNamespace: SyncNamespace {
    public typealias Row = Note

    public static let name = "notebook"
    public static let leafSchemaVersion = 1

    public static let excludedFields = [
        ExcludedField("bodyOffloaded", .residency,
                      reason: "says whether this device holds the bytes, not what the note says; the leaf commits to the body digest either way"),
        ExcludedField("offloadHolderPubkey", .residency,
                      reason: "two devices may name different holders of the same content"),
    ]

    public static let mergeRule: MergeRule<Note> = .causal
    public static let causalMembership: CausalMembership<Note> = .tracked { CanonicalWriter.wholeSeconds($0.updatedAt) }

    /// The domain separator of body digests.
    public static let bodyDomain = Array("synckernel.notebook.body".utf8)

    public static func key(of row: Note) -> [UInt8] { row.id }

    /// The digest of a body: SHA-256 under `bodyDomain` of its UTF-8 bytes.
    public static func bodyDigest(of body: String) -> [UInt8] {
        SHA256.hash(domain: bodyDomain, Array(body.utf8))
    }

    /// The body's contribution to the leaf: the stamped hash when offloaded, else the digest of the body.
    public static func bodyLeafDigest(_ note: Note) -> [UInt8] {
        if note.bodyOffloaded, let contentHash = note.contentHash { return contentHash }
        return bodyDigest(of: note.body)
    }

    public static func encodeLeaf(_ row: Note, into writer: inout CanonicalWriter) {
        writer.write(bytes: row.id)
        writer.write(row.title)
        writer.write(bytes: bodyLeafDigest(row))
        writer.write(texts: row.tags)
        writer.write(row.createdAt)
        writer.write(row.updatedAt)
    }

    public static func encodeRow(_ row: Note, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 9)
        writer.write(bytes: row.id)
        writer.write(row.title)
        writer.write(row.body)
        if let hash = row.contentHash { writer.write(bytes: hash) } else { writer.writeNull() }
        writer.write(texts: row.tags)
        writer.write(row.createdAt)
        writer.write(row.updatedAt)
        writer.write(row.bodyOffloaded)
        if let holder = row.offloadHolderPubkey { writer.write(bytes: holder) } else { writer.writeNull() }
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> Note {
        let fields = try value.array()
        guard fields.count == 9 else { throw SyncKernelError(.malformedFrame, "a note has 9 fields") }
        var note = Note(id: try fields[0].bytes(count: 16), title: try fields[1].text(), body: try fields[2].text(),
                        tags: try fields[4].texts(), createdAt: try fields[5].date(), updatedAt: try fields[6].date())
        note.contentHash = fields[3] == .null ? nil : try fields[3].bytes(count: 32)
        note.bodyOffloaded = try fields[7].bool()
        note.offloadHolderPubkey = fields[8] == .null ? nil : try fields[8].bytes()
        guard !note.bodyOffloaded || (note.contentHash != nil && note.body.isEmpty) else {
            throw SyncKernelError(.malformedFrame, "an offloaded note needs a content hash and no body")
        }
        return note
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
