import Foundation
import SyncKernel

/// posts: what the account has published, an append-only record.
///
/// Rule: `.insertIfAbsent`. A published post is never edited in place (readers have already seen
/// it), so corrections and retractions are new posts; immutability makes the weakest rule exact.
public enum PostsNamespace: SyncNamespace {
    public typealias Row = Post

    public static let name = "posts"
    public static let leafSchemaVersion = 1
    public static let excludedFields: [ExcludedField] = []
    public static let mergeRule: MergeRule<Post> = .insertIfAbsent
    public static let causalMembership: CausalMembership<Post> = .untracked

    public static func key(of row: Post) -> [UInt8] { row.postID }

    public static func encodeLeaf(_ row: Post, into writer: inout CanonicalWriter) {
        encodeRow(row, into: &writer)
    }

    public static func encodeRow(_ row: Post, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 5)
        writer.write(bytes: row.postID)
        writer.write(row.body)
        writer.write(row.publishedAt)
        writer.writeNullable(bytes: row.supersedes)
        writer.write(row.isRetraction)
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> Post {
        let fields = try value.fields(5, of: "a post")
        return Post(postID: try fields[0].bytes(count: 16), body: try fields[1].text(), publishedAt: try fields[2].date(),
                    supersedes: try fields[3].nullableBytes(), isRetraction: try fields[4].bool())
    }
}
