import Foundation

/// The side file beside a store's database (`<path>-lease`, mode 0600) that vouches for the
/// database's continuity: the store's current lease and how many local writes it committed.
///
/// Invariants: the lease is random (never derived from a key); a new one is written through a
/// temporary file, `fsync` and a rename, so the file holds the old or the new lease, never a mix;
/// the write count is rewritten in place after each committed local write, without `fsync`, so
/// it can only lag the database (a crash or power loss loses the update, never the commit) and
/// is never ahead of it unless the database went back. An unreadable file reads as such, never
/// as a lease. A file that says "restored" (`markRestored`) holds no lease.
enum LeaseFile {
    /// What the file holds.
    enum Contents: Equatable {
        /// No file.
        case missing
        /// A file that is not a lease file (damaged, torn, foreign).
        case unreadable
        /// The store was declared restored before it was opened.
        case restored
        /// A lease and the number of local writes committed under it.
        case lease([UInt8], writes: UInt64)
    }

    /// The bytes of a lease.
    static let leaseBytes = 16
    /// The most bytes a lease file is read for (a longer file is unreadable, not read whole).
    private static let maxBytes = 128
    private static let prefix = "synckernel-lease 1 "
    private static let restoredText = "synckernel-lease restored\n"

    /// The side file's path for the store at `path`.
    static func path(for store: String) -> String {
        store + "-lease"
    }

    /// Reads the side file of the store at `store`.
    static func read(store: String) -> Contents {
        let path = path(for: store)
        guard FileManager.default.fileExists(atPath: path) else { return .missing }
        guard let handle = FileHandle(forReadingAtPath: path) else { return .unreadable }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maxBytes + 1), data.count <= maxBytes,
              let text = String(data: data, encoding: .utf8) else { return .unreadable }
        if text == restoredText { return .restored }
        guard text.hasPrefix(prefix), text.hasSuffix("\n") else { return .unreadable }
        let fields = text.dropFirst(prefix.count).dropLast().split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count == 2, fields[1].count == 20, let lease = Hex.decode(String(fields[0])), lease.count == leaseBytes,
              fields[1].allSatisfy(\.isASCII), let writes = UInt64(fields[1]) else { return .unreadable }
        return .lease(lease, writes: writes)
    }

    /// Replaces the side file of `store` with `contents` (a lease or the restored mark) through a
    /// temporary file, `fsync` and a rename; throws `deviceEpochUnavailable` when it cannot.
    static func replace(store: String, with contents: Contents) throws(SyncKernelError) {
        let text: String
        switch contents {
        case .restored: text = restoredText
        case .lease(let lease, let writes): text = encode(lease, writes: writes)
        case .missing, .unreadable: throw SyncKernelError(.deviceEpochUnavailable, "not a lease to write")
        }
        let path = path(for: store)
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw SyncKernelError(.deviceEpochUnavailable, "the lease file cannot be created") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == bytes.count, synced, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw SyncKernelError(.deviceEpochUnavailable, "the lease file cannot be written")
        }
        let folder = (path as NSString).deletingLastPathComponent
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// Rewrites the write count of an existing side file in place, without `fsync` (best
    /// effort: a lost update only makes the file lag the database). Does not create the file.
    static func update(store: String, lease: [UInt8], writes: UInt64) {
        let descriptor = open(path(for: store), O_WRONLY)
        guard descriptor >= 0 else { return }
        let bytes = Array(encode(lease, writes: writes).utf8)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        close(descriptor)
    }

    /// The file's text for a lease: fixed width, so an update rewrites every byte it had.
    private static func encode(_ lease: [UInt8], writes: UInt64) -> String {
        let digits = String(writes)
        return prefix + Hex.encode(lease) + " " + String(repeating: "0", count: 20 - digits.count) + digits + "\n"
    }
}
