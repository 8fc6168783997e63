import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Downloaded content kept on disk by path and change tag, so a read or download of a file
/// whose tag has not changed since it was fetched needs no request.
///
/// Invariant: an entry is `<sha256(path)>.<sha256(tag)>` in `folder`, complete (written under a
/// `.part` name and renamed); storing an entry removes the path's entries of other tags; taking
/// one moves it out (rename, or copy and remove across file systems).
final class DownloadCache: Sendable {
    /// The folder holding the entries.
    let folder: URL

    /// A cache in `folder` (created when missing).
    init(folder: URL) {
        self.folder = folder
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// Where `path` at `tag` is (or goes) in the cache.
    func entry(_ path: String, tag: String) -> URL {
        folder.appendingPathComponent(Self.prefix(path) + "." + ContentHash.sha256(Data(tag.utf8)))
    }

    /// A fresh name to download `path` into before `store` renames it into place.
    func partial(_ path: String) -> URL {
        folder.appendingPathComponent(Self.prefix(path) + ".\(UUID().uuidString.lowercased()).part")
    }

    /// Whether the cache holds `path` at `tag`.
    func contains(_ path: String, tag: String) -> Bool {
        FileManager.default.fileExists(atPath: entry(path, tag: tag).path)
    }

    /// Makes the complete download at `partial` the entry of `path` at `tag`, dropping the
    /// path's entries of other tags.
    func store(_ partial: URL, as path: String, tag: String) {
        let prefix = Self.prefix(path) + "."
        let target = entry(path, tag: tag)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where name.hasPrefix(prefix) && !name.hasSuffix(".part") && name != target.lastPathComponent {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
        if rename(partial.path, target.path) != 0 { try? FileManager.default.removeItem(at: partial) }
    }

    /// Moves the entry of `path` at `tag` to `destination` (replacing what is there); `false`
    /// when there is none or it could not be moved.
    func take(_ path: String, tag: String, to destination: URL) -> Bool {
        let source = entry(path, tag: tag)
        guard FileManager.default.fileExists(atPath: source.path) else { return false }
        if rename(source.path, destination.path) == 0 { return true }
        guard errno == EXDEV else { return false }
        try? FileManager.default.removeItem(at: destination)
        guard (try? FileManager.default.copyItem(at: source, to: destination)) != nil else { return false }
        try? FileManager.default.removeItem(at: source)
        return true
    }

    /// The bytes of `path` at `tag`, when cached.
    func read(_ path: String, tag: String) -> Data? {
        try? Data(contentsOf: entry(path, tag: tag))
    }

    private static func prefix(_ path: String) -> String {
        ContentHash.sha256(Data(path.utf8))
    }
}
