#if canImport(Glibc)
import Glibc
#endif
import SyncKernel

/// Reads one blob of a `FolderBlobStore` from its open file, past the store header, in pieces.
///
/// Invariants: yields exactly `size` bytes (the file's length when opened, less the header) or
/// throws `blobStoreFailed`; the file is closed when the reader ends, fails or is released. A
/// class, so the descriptor has one owner however the reader is passed around.
final class FolderBlobReader: BlobReader, ByteSource {
    let size: Int64
    private var file: Int32
    private let pieceBytes: Int
    private var remaining: Int64

    /// A reader of the `size` bytes after the header of the open `file`, which it now owns.
    init(file: Int32, size: Int64, pieceBytes: Int) {
        self.file = file
        self.size = size
        self.pieceBytes = pieceBytes
        remaining = size
    }

    deinit {
        if file >= 0 { close(file) }
    }

    func next() throws -> [UInt8]? {
        guard remaining > 0, file >= 0 else {
            closeFile()
            return nil
        }
        do {
            let piece = try FolderBlobStore.read(Int(min(Int64(pieceBytes), remaining)), from: file)
            remaining -= Int64(piece.count)
            return piece
        } catch {
            closeFile()
            throw error
        }
    }

    nonisolated(nonsending) func nextPiece() async throws -> [UInt8]? {
        try next()
    }

    /// Closes the file once.
    private func closeFile() {
        if file >= 0 { close(file) }
        file = -1
    }
}
