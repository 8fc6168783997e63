@testable import SnapshotTransfer
import SyncKernel
import XCTest

/// A byte source over pieces held in memory, optionally failing after some of them.
///
/// Invariant: yields the pieces in order (empty ones skipped), then nil; with `failAfter`, throws
/// `failure` instead of the piece at that index.
struct PieceSource: ByteSource {
    private let pieces: [[UInt8]]
    private var index = 0
    private let failAfter: Int?
    private let failure: any Error

    init(_ pieces: [[UInt8]], failAfter: Int? = nil, failure: any Error = SyncKernelError(.storeClosed)) {
        self.pieces = pieces.filter { !$0.isEmpty }
        self.failAfter = failAfter
        self.failure = failure
    }

    /// The bytes cut in pieces of `size`.
    init(_ bytes: [UInt8], pieceBytes size: Int) {
        self.init(stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min($0 + size, bytes.count)]) })
    }

    mutating func next() throws -> [UInt8]? {
        if let failAfter, index == failAfter { throw failure }
        guard index < pieces.count else { return nil }
        defer { index += 1 }
        return pieces[index]
    }

    /// Everything a blob reader yields, joined.
    static func drain(blob reader: inout any BlobReader) async throws -> [UInt8] {
        var out: [UInt8] = []
        while let piece = try await reader.nextPiece() { out += piece }
        return out
    }

    /// Everything a source yields, joined.
    static func drain<Source: ByteSource>(_ source: inout Source) throws -> [UInt8] {
        var out: [UInt8] = []
        while let piece = try source.next() { out += piece }
        return out
    }
}

/// The helper checked against what it promises: it yields its pieces in order and fails where it is told to, so a broken helper fails on
/// its own instead of making the tests that use it pass or fail for the wrong reason.
final class PieceSourceSelfTests: XCTestCase {
    func testAPieceSourceYieldsItsPiecesInOrderSkipsEmptyOnesAndFailsWhereTold() throws {
        var source = PieceSource([[1, 2], [], [3], [4, 5, 6]])
        XCTAssertEqual(try source.next(), [1, 2])
        XCTAssertEqual(try source.next(), [3], "an empty piece is skipped")
        XCTAssertEqual(try source.next(), [4, 5, 6])
        XCTAssertNil(try source.next())
        XCTAssertNil(try source.next(), "stays at the end")

        var cut = PieceSource(Array(0..<10), pieceBytes: 4)
        XCTAssertEqual(try PieceSource.drain(&cut), Array(0..<10))
        var pieces = PieceSource(Array(0..<10), pieceBytes: 4)
        XCTAssertEqual(try pieces.next()?.count, 4)
        XCTAssertEqual(try pieces.next()?.count, 4)
        XCTAssertEqual(try pieces.next()?.count, 2, "the last piece holds the rest")

        var failing = PieceSource([[1], [2], [3]], failAfter: 1, failure: SnapshotTransferError(.blobStoreFailed))
        XCTAssertEqual(try failing.next(), [1])
        XCTAssertThrowsError(try failing.next()) { XCTAssertEqual(($0 as? SnapshotTransferError)?.code, .blobStoreFailed) }
    }
}
