@testable import SnapshotTransfer
import SyncKernel
import XCTest

/// The snapshot tests lean on four helpers: each is checked here against what it promises, so a
/// broken helper fails on its own instead of making the tests that use it pass or fail for the
/// wrong reason.
final class SupportSelfTests: XCTestCase {
    func testAFixtureReadsTheBytesOfItsLabelAndRefusesAMissingLabelOrFile() throws {
        let bytes = try Fixture.bytes("transfer/ack_ok")
        XCTAssertEqual(Array(bytes.prefix(4)), Array("SKXF".utf8), "the golden line's hex, decoded")
        XCTAssertThrowsError(try Fixture.bytes("transfer/ack_ok", label: "no-such-label"))
        XCTAssertThrowsError(try Fixture.bytes("transfer/no-such-fixture"))
    }

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

        var failing = PieceSource([[1], [2], [3]], failAfter: 1, failure: SyncKernelError(.blobStoreFailed))
        XCTAssertEqual(try failing.next(), [1])
        XCTAssertThrowsError(try failing.next()) { XCTAssertEqual(($0 as? SyncKernelError)?.code, .blobStoreFailed) }
    }

    func testTheVirtualClockMovesOnlyWhenAdvanced() {
        let clock = VirtualWallClock(1_000)
        XCTAssertEqual(clock.millisecondsSince1970, 1_000)
        XCTAssertEqual(clock.millisecondsSince1970, 1_000, "never moves by itself")
        clock.advance(by: .milliseconds(250))
        XCTAssertEqual(clock.millisecondsSince1970, 1_250)
        clock.advance(by: .seconds(2))
        XCTAssertEqual(clock.millisecondsSince1970, 3_250)
    }

    func testTheWorldMintsStableDevicesFreshStoresAndARichNotebookThatShipsWhole() throws {
        let world = try SnapshotWorld(seed: 3)
        XCTAssertEqual(try world.device(1), try SnapshotWorld(seed: 3).device(1), "devices are fixed by the seed")
        XCTAssertNotEqual(try world.device(0), try world.device(1))
        XCTAssertEqual(world.notes(5).count, 5)
        XCTAssertEqual(Set(world.notes(20).map(\.id)).count, 20, "fresh ids")

        let rich = try world.richNotebook("rich", rows: 40)
        let lines = try SnapshotWorld.bookkeeping(of: rich)
        XCTAssertEqual(lines.count, 40, "every note's key, live or deleted, has a line")
        XCTAssertTrue(lines.contains { $0.contains(" d [\"") }, "some keys hold delete versions")
        XCTAssertGreaterThan(try rich.leaves(namespace: "notebook").count, 0)

        let copy = try world.store("copy", device: 2)
        XCTAssertNotEqual(try SnapshotWorld.bookkeeping(of: copy), lines, "a fresh store holds nothing")
        let records = try SnapshotWorld.plaintext(of: rich)
        XCTAssertFalse(records.isEmpty)
        _ = try SnapshotWorld.importPlaintext(records, into: copy)
        XCTAssertEqual(try SnapshotWorld.bookkeeping(of: copy), lines, "a snapshot carries the whole bookkeeping")
        let directory = world.directory
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory))
    }
}
