import CSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What is at a database path before SQLite opens it, read from the file's first 100 bytes
/// (the SQLite header) without opening it as a database, and the few file operations a safe
/// creation needs.
///
/// Invariant: classifying a path never writes, creates or locks anything; it reads at most the
/// header.
package enum SQLiteFile: Equatable, Sendable {
    /// No file at the path.
    case missing
    /// A file of zero bytes.
    case empty
    /// A file that does not start with SQLite's header (too short, or another magic string).
    case notSQLite
    /// A SQLite database: the application id its header holds (0 when never set, or when it was
    /// set in a transaction the WAL still holds) and whether the header says WAL journal mode.
    case database(applicationID: Int32, isWAL: Bool)

    /// The 16 bytes every SQLite database file starts with: "SQLite format 3" and a NUL.
    private static let magic = Array("SQLite format 3\0".utf8)
    /// The size of the database header.
    private static let headerSize = 100

    /// Classifies the file at `path`; throws `openFailed` when it exists but cannot be read.
    package static func classify(_ path: String) throws(SQLiteError) -> SQLiteFile {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else {
            if errno == ENOENT { return .missing }
            throw SQLiteError(.openFailed, status: SQLITE_CANTOPEN)
        }
        defer { close(descriptor) }
        var header = [UInt8](repeating: 0, count: headerSize)
        var filled = 0
        while filled < headerSize {
            let count = header.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress.map { $0 + filled }, headerSize - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw SQLiteError(.openFailed, status: SQLITE_CANTOPEN) }
            if count == 0 { break }
            filled += count
        }
        if filled == 0 { return .empty }
        guard filled == headerSize, Array(header[0..<magic.count]) == magic else { return .notSQLite }
        let id = header[68..<72].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return .database(applicationID: Int32(bitPattern: id), isWAL: header[18] == 2 && header[19] == 2)
    }

    /// The size of the file at `path` in bytes, nil when there is none.
    static func size(of path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_size)
    }

    /// Removes the files at `paths` that exist.
    static func remove(_ paths: [String]) {
        for path in paths { unlink(path) }
    }

    /// Gives the file at `source` the second name `target`; false when `target` exists or the
    /// link fails.
    static func link(_ source: String, to target: String) -> Bool {
        #if canImport(Glibc)
        Glibc.link(source, target) == 0
        #else
        Darwin.link(source, target) == 0
        #endif
    }

    /// Syncs the directory holding `path`, so a name just linked there survives a power loss.
    static func syncDirectory(of path: String) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = open(directory.isEmpty ? "/" : directory, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
