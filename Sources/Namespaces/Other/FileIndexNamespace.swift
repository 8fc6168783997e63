import Foundation
import SyncKernel

/// fileIndex: the account's files, renamed and removed on any device, stored on some.
///
/// Rule: `.causal` for what the file is (name, size, content hash). Where the bytes live is
/// residency, excluded exactly as the notebook excludes its offload pointer: the leaf commits to
/// the content hash, so a device holding the bytes and one holding a pointer agree on the root.
public enum FileIndexNamespace: SyncNamespace {
    public typealias Row = FileEntry

    public static let name = "fileIndex"
    public static let leafSchemaVersion = 1
    public static let excludedFields = [
        ExcludedField("localPath", .residency, reason: "where this device keeps the bytes; says nothing about the file"),
        ExcludedField("holderPubkey", .residency, reason: "which device holds offloaded bytes; two devices may name different holders of one file"),
    ]
    public static let mergeRule: MergeRule<FileEntry> = .causal
    public static let causalMembership: CausalMembership<FileEntry> = .tracked { CanonicalWriter.wholeSeconds($0.updatedAt) }

    public static func key(of row: FileEntry) -> [UInt8] { row.fileID }

    public static func encodeLeaf(_ row: FileEntry, into writer: inout CanonicalWriter) {
        writer.write(bytes: row.fileID)
        writer.write(row.name)
        writer.write(row.size)
        writer.write(bytes: row.contentHash)
        writer.write(row.updatedAt)
    }

    public static func encodeRow(_ row: FileEntry, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 7)
        writer.write(bytes: row.fileID)
        writer.write(row.name)
        writer.write(row.size)
        writer.write(bytes: row.contentHash)
        writer.write(row.updatedAt)
        writer.writeNullable(row.localPath)
        writer.writeNullable(bytes: row.holderPubkey)
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> FileEntry {
        let fields = try value.fields(7, of: "a file entry")
        return FileEntry(fileID: try fields[0].bytes(count: 16), name: try fields[1].text(), size: try fields[2].int64(),
                         contentHash: try fields[3].bytes(count: 32), updatedAt: try fields[4].date(),
                         localPath: try fields[5].nullableText(), holderPubkey: try fields[6].nullableBytes())
    }

    /// A sibling's version wins on content; this device keeps its own residency.
    public static func adopt(_ incoming: FileEntry, over local: FileEntry?) -> FileEntry {
        var entry = incoming
        entry.localPath = local?.contentHash == incoming.contentHash ? local?.localPath : nil
        entry.holderPubkey = local?.contentHash == incoming.contentHash ? local?.holderPubkey ?? incoming.holderPubkey
            : incoming.holderPubkey
        return entry
    }
}
