@testable import SnapshotTransfer
import SyncKernel

/// A byte source over pieces held in memory, optionally failing after some of them.
///
/// Invariant: yields the pieces in order (empty ones skipped), then nil; with `failAfter`, throws
/// `failure` instead of the piece at that index.
struct PieceSource: ByteSource {
    private let pieces: [[UInt8]]
    private var index = 0
    private let failAfter: Int?
    private let failure: SyncKernelError

    init(_ pieces: [[UInt8]], failAfter: Int? = nil, failure: SyncKernelError = SyncKernelError(.storeClosed)) {
        self.pieces = pieces.filter { !$0.isEmpty }
        self.failAfter = failAfter
        self.failure = failure
    }

    /// The bytes cut in pieces of `size`.
    init(_ bytes: [UInt8], pieceBytes size: Int) {
        self.init(stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) })
    }

    mutating func next() throws(SyncKernelError) -> [UInt8]? {
        if let failAfter, index == failAfter { throw failure }
        guard index < pieces.count else { return nil }
        defer { index += 1 }
        return pieces[index]
    }

    /// Everything a source yields, joined.
    static func drain<Source: ByteSource>(_ source: inout Source) throws -> [UInt8] {
        var out: [UInt8] = []
        while let piece = try source.next() { out += piece }
        return out
    }
}
