#if canImport(Glibc)
import Glibc
#endif
import SyncKernel

/// A private temporary file a fetched blob is written to before it is checked and read back.
///
/// Invariants: created exclusively with mode 0600 under a random name in its folder, and removed
/// when the spool is released (whatever happened), so no fetched blob outlives its absorb;
/// `reader()` reads it from the start, as often as asked.
final class SpoolFile {
    let path: String
    private var file: Int32
    private var length: Int64 = 0

    /// A new spool file in `directory`; `blobStoreFailed` when it cannot be created.
    init(directory: String) throws {
        path = directory + "/snapshot-" + BlobID.random().hex + ".spool"
        file = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard file >= 0 else { throw SnapshotTransferError(.blobStoreFailed, "cannot create a spool file (errno \(errno))") }
    }

    deinit {
        close(file)
        unlink(path)
    }

    /// Appends `bytes`.
    func append(_ bytes: [UInt8]) throws {
        try FolderBlobStore.write(bytes, to: file)
        length += Int64(bytes.count)
    }

    /// A reader of everything appended, from the start.
    func reader() throws -> FolderBlobReader {
        let copy = open(path, O_RDONLY | O_CLOEXEC)
        guard copy >= 0 else { throw SnapshotTransferError(.blobStoreFailed, "cannot read the spool file (errno \(errno))") }
        return FolderBlobReader(file: copy, size: length, pieceBytes: 1 << 20)
    }
}
