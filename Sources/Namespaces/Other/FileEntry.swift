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
