import Foundation

/// Builds a `SyncSnapshot` of a local directory: every regular file, hash-compared, with a
/// manifest as the marker.
///
/// Invariant: paths are relative with `/`, in sorted order; names starting with `.cloudanchor`
/// (state files) or ending in `.cloudanchor-part` (a restore's staging files) are skipped; the manifest lists path, size and SHA-256 of every
/// entry in sorted JSON and carries no timestamp, so the same content gives the same marker.
public enum DirectorySnapshot {
    /// One manifest line.
    public struct ManifestEntry: Codable, Sendable, Hashable {
        /// The relative path.
        public var path: String
        /// The size in bytes.
        public var size: Int64
        /// The SHA-256 of the content.
        public var sha256: String
    }

    /// Scans `root`; throws `CloudError.localIO` when it cannot be read.
    public static func scan(_ root: URL) throws(CloudError) -> SyncSnapshot {
        var files: [(String, URL)] = []
        try collect(root, relative: [], into: &files)
        var entries: [SyncEntry] = []
        var manifest: [ManifestEntry] = []
        for (path, url) in files.sorted(by: { $0.0 < $1.0 }) {
            guard let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.int64Value
            else { throw .localIO }
            let hash = try ContentHash.sha256(fileAt: url)
            entries.append(SyncEntry(path: path, size: size, hash: hash, source: .file(url)))
            manifest.append(ManifestEntry(path: path, size: size, sha256: hash))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let marker = try? encoder.encode(manifest) else { throw .localIO }
        return SyncSnapshot(entries: entries, marker: marker)
    }

    /// Reads a manifest written by `scan`, or `nil` when `marker` is not one.
    public static func manifest(_ marker: Data) -> [ManifestEntry]? {
        try? JSONDecoder().decode([ManifestEntry].self, from: marker)
    }

    private static func collect(_ folder: URL, relative: [String], into files: inout [(String, URL)]) throws(CloudError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw .localIO
        }
        for name in names where !name.hasPrefix(".cloudanchor") && !name.hasSuffix(".cloudanchor-part") {
            let url = folder.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                try collect(url, relative: relative + [name], into: &files)
            } else {
                files.append(((relative + [name]).joined(separator: "/"), url))
            }
        }
    }
}
