import Foundation
import SyncKernel

/// One file the account keeps: what it is, and (per device) where its bytes live.
public struct FileEntry: Sendable, Hashable {
    /// The stable key (16 random bytes).
    public var fileID: [UInt8]
    /// The file's name.
    public var name: String
    /// Its size in bytes.
    public var size: Int64
    /// SHA-256 of its content (32 bytes).
    public var contentHash: [UInt8]
    /// Change stamp on the editing device's clock.
    public var updatedAt: Date
    /// Where this device keeps the bytes, if it does (residency).
    public var localPath: String?
    /// The device holding the bytes when this one does not (residency).
    public var holderPubkey: [UInt8]?

    /// Creates an entry.
    public init(fileID: [UInt8], name: String, size: Int64, contentHash: [UInt8], updatedAt: Date,
                localPath: String? = nil, holderPubkey: [UInt8]? = nil) {
        self.fileID = fileID
        self.name = name
        self.size = size
        self.contentHash = contentHash
        self.updatedAt = updatedAt
        self.localPath = localPath
        self.holderPubkey = holderPubkey
    }
}

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
