import Foundation
import SyncKernel

/// saga: a user-edited document, edited on any device.
///
/// Rule: `.causal`. Two devices may rewrite the same saga; only version vectors can say which
/// rewrite had seen the other, and a concurrent pair resolves the same way everywhere.
public enum SagaNamespace: SyncNamespace {
    public static let name = "saga"

    public static let schema = RowSchema<SagaEntry>(
        blank: SagaEntry(id: [], title: "", chapters: [], updatedAt: .distantPast), key: \.id, layout: .wholeRow, [
            .hashed("id", \.id, .bytes(count: 16)),
            .hashed("title", \.title, .text),
            .hashed("chapters", \.chapters, .array(.text)),
            .hashed("updatedAt", \.updatedAt, .date),
        ])

    public static let mergeRule = MergeRule<SagaEntry>.causal(changeStamp: \.updatedAt)
}
