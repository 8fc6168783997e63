import Foundation
import SyncKernel

/// Whether the account blocks a user.
public struct BlockEntry: Sendable, Hashable {
    /// The blocked user's account fingerprint, the stable key.
    public var userIDHash: [UInt8]
    /// Blocked now?
    public var isBlocked: Bool
    /// Change stamp on the editing device's clock.
    public var updatedAt: Date

    /// Creates an entry.
    public init(userIDHash: [UInt8], isBlocked: Bool, updatedAt: Date) {
        self.userIDHash = userIDHash
        self.isBlocked = isBlocked
        self.updatedAt = updatedAt
    }
}
