import Foundation
import SyncKernel

/// One saga: a long-running narrative the user and the agent write together.
public struct SagaEntry: Sendable, Hashable {
    /// The stable key (16 random bytes).
    public var id: [UInt8]
    /// The title.
    public var title: String
    /// The chapters, in order.
    public var chapters: [String]
    /// Change stamp on the editing device's clock (RowClock reads it for inequality only).
    public var updatedAt: Date

    /// Creates a saga entry.
    public init(id: [UInt8], title: String, chapters: [String], updatedAt: Date) {
        self.id = id
        self.title = title
        self.chapters = chapters
        self.updatedAt = updatedAt
    }
}
