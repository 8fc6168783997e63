import Foundation
import SyncKernel

/// A post the account published.
///
/// Invariant: immutable once published; a correction or retraction is a new post naming the
/// one it supersedes.
public struct Post: Sendable, Hashable {
    /// The stable key (16 random bytes).
    public var postID: [UInt8]
    /// The text.
    public var body: String
    /// When it was published (the publishing device's clock; information only).
    public var publishedAt: Date
    /// The post this one corrects or retracts.
    public var supersedes: [UInt8]?
    /// True for a retraction of `supersedes`.
    public var isRetraction: Bool

    /// Creates a post.
    public init(postID: [UInt8], body: String, publishedAt: Date, supersedes: [UInt8]? = nil, isRetraction: Bool = false) {
        self.postID = postID
        self.body = body
        self.publishedAt = publishedAt
        self.supersedes = supersedes
        self.isRetraction = isRetraction
    }
}
