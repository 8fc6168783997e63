import Foundation
import SyncKernel

/// One notebook entry.
///
/// Invariant: `contentHash`, when set, equals `NotebookNamespace.bodyDigest(of:)` of the body
/// the note had when it was stamped; an offloaded note has an empty `body` and a `contentHash`,
/// so its leaf is the same as the resident note's.
public struct Note: Sendable, Hashable {
    /// The stable cross-device key: 16 random bytes minted when the note is created.
    public var id: [UInt8]
    /// The title.
    public var title: String
    /// The body text; empty while offloaded.
    public var body: String
    /// The body digest stamped before offloading (nil while never offloaded).
    public var contentHash: [UInt8]?
    /// Tags, in the author's order.
    public var tags: [String]
    /// When the note was created (whole seconds on the wire).
    public var createdAt: Date
    /// When the note was last edited on its editing device's clock: a change detector, never an order.
    public var updatedAt: Date
    /// Whether the body lives on another device (residency, excluded from the leaf).
    public var bodyOffloaded: Bool
    /// The public key of the device holding the offloaded body (residency, excluded from the leaf).
    public var offloadHolderPubkey: [UInt8]?

    /// Creates a resident note.
    public init(id: [UInt8], title: String, body: String, tags: [String] = [], createdAt: Date, updatedAt: Date) {
        self.id = id
        self.title = title
        self.body = body
        contentHash = nil
        self.tags = tags
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        bodyOffloaded = false
        offloadHolderPubkey = nil
    }
}
