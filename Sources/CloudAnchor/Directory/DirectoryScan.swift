import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A scan of a local folder for a directory backup, under the entry policy of
/// `docs/cloud-anchor.md` (Entry policy).
///
/// Invariant: the walk never follows a symbolic link (each entry is looked at with `lstat`, a
/// link is recorded with its target and never descended, so it cannot leave the folder or loop)
/// and never opens anything but a regular file (opened with `O_NOFOLLOW | O_NONBLOCK`, so a FIFO
/// cannot hang it); folders (empty ones too), regular files and links go into the manifest;
/// FIFOs, sockets, devices and names that are not UTF-8 are skipped and listed; a file that keeps
/// changing while it is hashed (three tries) is listed in `changing` and left out; a file or
/// folder that cannot be read is listed in `problems` by name. Names are kept byte for byte.
public struct DirectoryScan: Sendable {
    /// A regular file of the snapshot.
    public struct File: Sendable, Hashable {
        /// The path relative to the scanned folder.
        public var path: String
        /// The absolute local path.
        public var localPath: String
        /// The size when hashed.
        public var size: Int64
        /// The SHA-256 of the content.
        public var sha256: String
        /// The stamp the file had while it was hashed.
        public var stamp: FileStamp
    }

    /// An entry the policy leaves out, with why.
    public struct Skipped: Sendable, Hashable, CustomStringConvertible {
        /// What kind of entry it is.
        public enum Kind: String, Sendable, Hashable {
            /// A named pipe.
            case fifo = "a FIFO"
            /// A Unix domain socket.
            case socket = "a socket"
            /// A character device.
            case characterDevice = "a character device"
            /// A block device.
            case blockDevice = "a block device"
            /// A name (or a link target) that is not valid UTF-8.
            case nameNotUTF8 = "a name that is not UTF-8"
        }

        /// The relative path (bytes that are not UTF-8 shown as `%XX`).
        public var path: String
        /// The kind.
        public var kind: Kind

        /// `skipped <kind>: <path>`.
        public var description: String {
            "skipped \(kind.rawValue): \(path)"
        }
    }

    /// The manifest of the snapshot.
    public var manifest: Manifest
    /// The regular files, in manifest order.
    public var files: [File]
    /// Entries the policy leaves out.
    public var skipped: [Skipped]
    /// Files that changed every time they were hashed, left out of this snapshot.
    public var changing: [String]
    /// Files and folders that could not be read.
    public var problems: [FileProblem]

    /// How many times a file that changes while it is hashed is tried.
    static let hashAttempts = 3

    /// Scans `root` (which may itself be a link to a folder), leaving out the relative paths in
    /// `excluding`; throws when `root` is not a readable folder.
    public static func scan(_ root: URL, excluding: Set<String> = []) throws(FileProblem) -> DirectoryScan {
        let rootPath = root.path
        var info = stat()
        guard stat(rootPath, &info) == 0 else { throw FileProblem(FileProblem.Cause(errno: errno), path: rootPath) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw FileProblem(.notAFolder, path: rootPath) }
        var walker = Walker(excluding: Set(excluding.map { ExactPath($0) }))
        if let problem = walker.walk(rootPath, relative: []), problem.path == "." {
            throw FileProblem(problem.cause, path: rootPath)
        }
        let manifest: Manifest
        do {
            manifest = try Manifest(entries: walker.entries)
        } catch {
            throw FileProblem(.ioError, path: rootPath)
        }
        return DirectoryScan(manifest: manifest, files: walker.files.sorted { $0.path.bytesPrecede($1.path) },
                             skipped: walker.skipped, changing: walker.changing, problems: walker.problems)
    }

    /// The relative path of `absolute` below `root` when it lies there (both resolved through
    /// links), for leaving a state file kept inside the folder out of its own backup.
    public static func relativePath(of absolute: String, below root: URL) -> String? {
        guard let resolvedRoot = resolve(root.path) else { return nil }
        let folder = (absolute as NSString).deletingLastPathComponent
        guard let resolvedFolder = resolve(folder) else { return nil }
        let full = resolvedFolder + "/" + (absolute as NSString).lastPathComponent
        let prefix = resolvedRoot.hasSuffix("/") ? resolvedRoot : resolvedRoot + "/"
        guard full.bytesHavePrefix(prefix) else { return nil }
        return String(decoding: full.utf8.dropFirst(prefix.utf8.count), as: UTF8.self)
    }

    private static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The recursive walk.
    private struct Walker {
        let excluding: Set<ExactPath>
        var entries: [Manifest.Entry] = []
        var files: [File] = []
        var skipped: [Skipped] = []
        var changing: [String] = []
        var problems: [FileProblem] = []

        init(excluding: Set<ExactPath>) {
            self.excluding = excluding
        }

        /// Walks the folder at `path`; returns the problem when the folder itself cannot be read
        /// (also recorded, except for the root, whose problem is the caller's).
        mutating func walk(_ path: String, relative: [String]) -> FileProblem? {
            let here = relative.isEmpty ? "." : relative.joined(separator: "/")
            guard let directory = opendir(path) else {
                let problem = FileProblem(FileProblem.Cause(errno: errno), path: here)
                if !relative.isEmpty { problems.append(problem) }
                return problem
            }
            var names: [[UInt8]] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
                if name != [0x2E], name != [0x2E, 0x2E] { names.append(name) }
            }
            closedir(directory)
            for raw in names.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
                guard let name = String(validating: raw, as: UTF8.self) else {
                    let shown = (relative + [Manifest.escape(String(decoding: raw, as: UTF8.self))]).joined(separator: "/")
                    skipped.append(Skipped(path: shown, kind: .nameNotUTF8))
                    continue
                }
                let components = relative + [name]
                let relativePath = components.joined(separator: "/")
                if excluding.contains(ExactPath(relativePath)) { continue }
                visit(path + "/" + name, components: components, relativePath: relativePath)
            }
            return nil
        }

        private mutating func visit(_ path: String, components: [String], relativePath: String) {
            var info = stat()
            guard lstat(path, &info) == 0 else {
                if errno != ENOENT { problems.append(FileProblem(FileProblem.Cause(errno: errno), path: relativePath)) }
                return
            }
            switch info.st_mode & S_IFMT {
            case S_IFDIR:
                entries.append(.folder(path: relativePath))
                _ = walk(path, relative: components)
            case S_IFREG:
                hash(path, relativePath: relativePath)
            case S_IFLNK:
                link(path, relativePath: relativePath)
            case S_IFIFO:
                skipped.append(Skipped(path: relativePath, kind: .fifo))
            case S_IFSOCK:
                skipped.append(Skipped(path: relativePath, kind: .socket))
            case S_IFCHR:
                skipped.append(Skipped(path: relativePath, kind: .characterDevice))
            default:
                skipped.append(Skipped(path: relativePath, kind: .blockDevice))
            }
        }

        private mutating func hash(_ path: String, relativePath: String) {
            for _ in 0..<hashAttempts {
                do throws(FileProblem.Cause) {
                    let (sha256, stamp) = try ContentHash.sha256(regularFileAt: path)
                    entries.append(.file(path: relativePath, size: stamp.size, sha256: sha256))
                    files.append(File(path: relativePath, localPath: path, size: stamp.size, sha256: sha256, stamp: stamp))
                    return
                } catch .changedWhileReading {
                    continue
                } catch .notFound {
                    return
                } catch {
                    problems.append(FileProblem(error, path: relativePath))
                    return
                }
            }
            changing.append(relativePath)
        }

        private mutating func link(_ path: String, relativePath: String) {
            var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = buffer.withUnsafeMutableBufferPointer { pointer in
                pointer.baseAddress.map { base in
                    base.withMemoryRebound(to: CChar.self, capacity: pointer.count) { readlink(path, $0, pointer.count) }
                } ?? -1
            }
            guard count > 0 else {
                if errno != ENOENT { problems.append(FileProblem(FileProblem.Cause(errno: errno), path: relativePath)) }
                return
            }
            guard let target = String(validating: buffer.prefix(count), as: UTF8.self) else {
                skipped.append(Skipped(path: relativePath, kind: .nameNotUTF8))
                return
            }
            entries.append(.link(path: relativePath, target: target))
        }
    }
}
