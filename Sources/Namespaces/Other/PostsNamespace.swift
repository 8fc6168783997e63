import Foundation
import SyncKernel

/// posts: what the account has published, an append-only record.
///
/// Rule: `.insertIfAbsent`. A published post is never edited in place (readers have already seen
/// it), so corrections and retractions are new posts; immutability makes the weakest rule exact.
public enum PostsNamespace: SyncNamespace {
    public static let name = "posts"

    public static let schema = RowSchema<Post>(
        blank: Post(postID: [], body: "", publishedAt: .distantPast), key: \.postID, layout: .wholeRow, [
            .hashed("postID", \.postID, .bytes(count: 16)),
            .hashed("body", \.body, .text),
            .hashed("publishedAt", \.publishedAt, .date),
            .hashed("supersedes", \.supersedes, .optional(.bytes())),
            .hashed("isRetraction", \.isRetraction, .bool),
        ])

    public static let mergeRule = MergeRule<Post>.insertIfAbsent
}
