import Foundation
@testable import SyncKernel
import XCTest

/// The lean forms on the wire (`SyncFrame.leanCapability`, `impliedAccountCapability`): an
/// epoch announcement (`g`) and echo (`z`), a push's epoch reference (`DeviceTable.epochIndex`),
/// a push's delta row (`DeltaVector`: `[check, index, count]` in the vector's place) and a
/// compact frame without its account tag. The encodings are pinned against
/// `Fixtures/frames/lean_<case>.golden`; anything an encoder never writes is refused with a
/// typed error, and an epoch reference the reader cannot resolve reads as
/// `DeviceID.unresolvedEpoch`, never as another dimension.
final class LeanFrameTests: XCTestCase {
    private static let schema = GoldenFrameTests.schema
    private static let account = GoldenFrameTests.account
    /// The announced epoch: number 2 under a nonce of sixteen 0x4e bytes.
    private static let nonce = [UInt8](repeating: 0x4e, count: DeviceEpoch.nonceBytes)

    /// The sender (device 32 x 11), its epoch 2 and that epoch's dimension, the receiver (32 x 22)
    /// and a third device (32 x 33) that created the edited row.
    private func parties() throws -> (sender: DeviceID, epoch: DeviceEpoch, receiver: DeviceID, third: DeviceID) {
        let (first, second, third) = try GoldenFrameTests.devices()
        return (first, DeviceEpoch(device: first, number: 2, nonce: LeanFrameTests.nonce), second, third)
    }

    /// The golden cases: a lean push (a delta row over a history of the third device, a whole
    /// row of its own creation, a delete naming the epoch) that announces the epoch and leaves the
    /// account tag out, and a digest that echoes the receiver's epoch and announces the sender's.
    private func frames() throws -> [(name: String, frame: SyncFrame)] {
        let parties = try parties()
        let edited = ShippedRow(row: GoldenFrameTests.rowA(), vector: VersionVector([parties.third: 4, parties.epoch.dimension: 1]),
                                writer: parties.sender)
        let created = ShippedRow(row: [0x82, 0x01, 0x02], vector: VersionVector([parties.epoch.dimension: 3]))
        let response = ReconcileResponse(namespace: "records", rows: [edited, created],
                                         tombstones: [Tombstone(key: [0x05], vector: VersionVector([parties.epoch.dimension: 2]))])
        let announcement = try XCTUnwrap(EpochAnnouncement(parties.epoch))
        return [
            ("lean_push", SyncFrame(account: LeanFrameTests.account, schema: LeanFrameTests.schema,
                                    body: .push(response, root: [UInt8](repeating: 0x6b, count: StateDigest.setHashRootBytes), change: 301),
                                    compactHeader: true, sender: parties.sender, receiver: parties.receiver,
                                    epochAnnouncement: announcement, senderEpoch: parties.epoch.dimension,
                                    deltaDimension: parties.epoch.dimension, omitsAccount: true)),
            ("lean_digest_echo", SyncFrame(account: LeanFrameTests.account, schema: LeanFrameTests.schema,
                                           body: .stateDigest(digest: GoldenFrameTests.digest().encoded(), probe: false, changes: [1, 300]),
                                           compactHeader: true, sender: parties.sender, epochAnnouncement: announcement,
                                           epochEcho: [UInt8](repeating: 0x77, count: EpochAnnouncement.echoBytes))),
        ]
    }

    private func decode(_ bytes: [UInt8], senderEpoch: DeviceID? = nil, impliedAccount: Bool = true) throws -> SyncFrame {
        let parties = try parties()
        return try SyncFrame(decoding: bytes, account: LeanFrameTests.account, sender: parties.sender, receiver: parties.receiver,
                             senderEpoch: senderEpoch, impliedAccount: impliedAccount)
    }

    private func pushed(_ frame: SyncFrame) throws -> ReconcileResponse {
        guard case .push(let response, _, _) = frame.body else { throw XCTSkip("not a push") }
        return response
    }

    func testLeanFramesEncodeToTheirGoldenBytesAndDecodeBack() throws {
        let parties = try parties()
        for (name, frame) in try frames() {
            let recorded = try FrameFixture.recordedBytes(name)
            XCTAssertEqual(Hex.encode(frame.encoded()), Hex.encode(recorded), "\(name): encoding differs from the fixture")
            let decoded = try decode(recorded)
            XCTAssertEqual(decoded.encoded(), recorded, "\(name): re-encodes the same")
            XCTAssertEqual(decoded.epochAnnouncement, frame.epochAnnouncement, name)
            XCTAssertEqual(decoded.epochEcho, frame.epochEcho, name)
            XCTAssertEqual(decoded.omitsAccount, frame.omitsAccount, name)
            XCTAssertEqual(decoded.account, LeanFrameTests.account, "\(name): an omitted tag reads as the reader's account")
        }
        let push = try pushed(try decode(try FrameFixture.recordedBytes("lean_push")))
        let edited = try XCTUnwrap(push.rows.first)
        XCTAssertEqual(edited.base, DeltaVector.check(of: VersionVector([parties.third: 4]), excluding: []))
        XCTAssertEqual(edited.vector, VersionVector([parties.epoch.dimension: 1]), "the reference reads as the announced epoch")
        XCTAssertEqual(edited.writer, parties.sender)
        XCTAssertNil(push.rows.last?.base, "a row of its own creation goes whole")
        XCTAssertEqual(push.tombstones.first?.vector, VersionVector([parties.epoch.dimension: 2]))
        XCTAssertEqual(DeltaVector.resolve(try XCTUnwrap(edited.vector), check: try XCTUnwrap(edited.base),
                                           over: VersionVector([parties.third: 4, parties.epoch.dimension: 7])),
                       VersionVector([parties.third: 4, parties.epoch.dimension: 1]), "the receiver's count of the changed entry does not matter")
    }

    func testAnEpochReferenceReadsAsTheHeldEpochOrAsNoneWithoutAnAnnouncement() throws {
        let parties = try parties()
        let (_, frame) = try XCTUnwrap(try frames().first)
        let bare = SyncFrame(account: frame.account, schema: frame.schema, body: frame.body, compactHeader: true, sender: parties.sender,
                             receiver: parties.receiver, senderEpoch: parties.epoch.dimension, deltaDimension: parties.epoch.dimension)
        XCTAssertEqual(try pushed(try decode(bare.encoded(), senderEpoch: parties.epoch.dimension)).tombstones.first?.vector,
                       VersionVector([parties.epoch.dimension: 2]))
        let unread = try pushed(try decode(bare.encoded()))
        XCTAssertEqual(unread.tombstones.first?.vector, VersionVector([DeviceID.unresolvedEpoch: 2]))
        XCTAssertTrue(try XCTUnwrap(unread.rows.first).namesUnresolvedEpoch)
        let other = DeviceEpoch(device: parties.sender, number: 2, nonce: [UInt8](repeating: 1, count: DeviceEpoch.nonceBytes))
        XCTAssertEqual(try pushed(try decode(frame.encoded(), senderEpoch: other.dimension)).tombstones.first?.vector,
                       VersionVector([parties.epoch.dimension: 2]), "the frame's own announcement wins over what the reader held")
    }

    func testADeltaResolvesOnlyOverTheHistoryItWasWrittenAgainst() throws {
        let parties = try parties()
        let shipped = VersionVector([parties.third: 4, parties.receiver: 2, parties.epoch.dimension: 5])
        let check = DeltaVector.check(of: shipped, excluding: [parties.epoch.dimension])
        let delta = DeltaVector.delta(of: shipped, dimension: parties.epoch.dimension)
        XCTAssertEqual(DeltaVector.resolve(delta, check: check, over: VersionVector([parties.third: 4, parties.receiver: 2])), shipped)
        for held in [VersionVector([parties.third: 4, parties.receiver: 3]), VersionVector([parties.third: 4]),
                     VersionVector([parties.third: 4, parties.receiver: 2, parties.sender: 1]), VersionVector()] {
            XCTAssertNil(DeltaVector.resolve(delta, check: check, over: held), "\(held): another history is never completed")
        }
    }

    func testOnlyAnEditedRowWithHistoryBeyondTheOneByteReferencesGoesAsADelta() throws {
        let parties = try parties()
        let dimension = parties.epoch.dimension
        func applies(_ row: ShippedRow) -> Bool {
            DeltaVector.applies(to: row, dimension: dimension, sender: parties.sender, receiver: parties.receiver)
        }
        let row = GoldenFrameTests.rowA()
        XCTAssertTrue(applies(ShippedRow(row: row, vector: VersionVector([parties.third: 1, dimension: 1]))))
        XCTAssertFalse(applies(ShippedRow(row: row, vector: VersionVector([parties.third: 1]))), "the pusher did not write it")
        XCTAssertFalse(applies(ShippedRow(row: row, vector: VersionVector([parties.receiver: 1, parties.sender: 2, dimension: 1]))),
                       "references cost a byte: whole is smaller")
        XCTAssertFalse(applies(ShippedRow(row: row, vector: VersionVector([parties.third: 1, dimension: 1]), creation: parties.third)))
        XCTAssertFalse(applies(ShippedRow(row: row, vector: VersionVector([parties.third: 1, dimension: 2]),
                                          contentVector: VersionVector([dimension: 1]))))
        XCTAssertFalse(applies(ShippedRow(row: row, vector: VersionVector([parties.third: 1, dimension: 2]),
                                          siblings: [ShippedRow(row: row, vector: VersionVector([parties.receiver: 1]))])))
    }

    func testRejectLeanFormsNoEncoderWrites() throws {
        let parties = try parties()
        let check = [UInt8](repeating: 0x33, count: DeltaVector.checkBytes)
        func push(rows: (inout CanonicalWriter) -> Void, extra: (inout MapWriter) -> Void = { _ in }) -> [UInt8] {
            var writer = CanonicalWriter()
            writer.writeMap { map in
                map.entry("k") { $0.write(UInt64(7)) }
                map.entry("s") { $0.write(LeanFrameTests.schema.value) }
                map.entry("n") { $0.write("records") }
                map.entry("r") { rows(&$0) }
                map.entry("o") { $0.write(bytes: [UInt8](repeating: 0x6b, count: StateDigest.setHashRootBytes)) }
                map.entry("h") { $0.write(UInt64(3)) }
                extra(&map)
            }
            return writer.bytes
        }
        /// One positional row: the golden row, `vector`, then `writerIndex` or nulls up to `fields`.
        func oneRow(_ vector: @escaping (inout CanonicalWriter) -> Void, fields: Int = 2,
                    writerIndex: UInt64? = nil) -> (inout CanonicalWriter) -> Void {
            { writer in
                writer.writeArrayHeader(count: 1)
                writer.writeArrayHeader(count: fields)
                writer.write(encodedItem: GoldenFrameTests.rowA())
                vector(&writer)
                for field in 2..<max(2, fields) {
                    if field == 2, let writerIndex { writer.write(writerIndex) } else { writer.writeNull() }
                }
            }
        }
        // Table-less push: own creation 0, sender 1, receiver 2, epoch 3.
        let delta: (inout CanonicalWriter) -> Void = { writer in
            writer.writeArrayHeader(count: 3)
            writer.write(bytes: check)
            writer.write(UInt64(3))
            writer.write(UInt64(1))
        }
        XCTAssertNoThrow(try decode(push(rows: oneRow(delta))), "the well-formed delta row reads")
        let cases: [(String, [UInt8], SyncKernelError.Code)] = [
            ("a check of 7 bytes", push(rows: oneRow { writer in
                writer.writeArrayHeader(count: 3)
                writer.write(bytes: Array(check.dropLast()))
                writer.write(UInt64(3))
                writer.write(UInt64(1))
            }), .unexpectedType),
            ("a delta that changes nothing", push(rows: oneRow { writer in
                writer.writeArrayHeader(count: 1)
                writer.write(bytes: check)
            }), .malformedFrame),
            ("a delta naming the row's own creation", push(rows: oneRow { writer in
                writer.writeArrayHeader(count: 3)
                writer.write(bytes: check)
                writer.write(UInt64(0))
                writer.write(UInt64(1))
            }), .malformedFrame),
            ("a delta row with a content vector", push(rows: oneRow(delta, fields: 4)), .malformedFrame),
            ("an epoch announced as number 0", push(rows: oneRow(delta)) { map in
                map.entry("g") { writer in
                    writer.writeArrayHeader(count: 2)
                    writer.write(UInt64(0))
                    writer.write(bytes: LeanFrameTests.nonce)
                }
            }, .malformedFrame),
            ("an announcement with a short nonce", push(rows: oneRow(delta)) { map in
                map.entry("g") { writer in
                    writer.writeArrayHeader(count: 2)
                    writer.write(UInt64(2))
                    writer.write(bytes: Array(LeanFrameTests.nonce.dropLast()))
                }
            }, .unexpectedType),
            ("an announcement of three items", push(rows: oneRow(delta)) { map in
                map.entry("g") { writer in
                    writer.writeArrayHeader(count: 3)
                    writer.write(UInt64(2))
                    writer.write(bytes: LeanFrameTests.nonce)
                    writer.write(UInt64(0))
                }
            }, .malformedFrame),
            ("an echo of 5 bytes", push(rows: oneRow(delta)) { map in map.entry("z") { $0.write(bytes: [1, 2, 3, 4, 5]) } },
             .malformedFrame),
            ("the epoch reference as a writer", push(rows: oneRow({ writer in
                writer.writeArrayHeader(count: 2)
                writer.write(UInt64(1))
                writer.write(UInt64(1))
            }, fields: 3, writerIndex: 3)), .malformedFrame),
        ]
        for (name, bytes, code) in cases {
            XCTAssertThrowsError(try decode(bytes), name) { error in
                XCTAssertEqual((error as? SyncKernelError)?.code, code, "\(name): \(error)")
            }
        }
        var outside = CanonicalWriter()
        outside.writeMap { map in
            map.entry("k") { $0.write(UInt64(3)) }
            map.entry("s") { $0.write(LeanFrameTests.schema.value) }
            map.entry("n") { $0.write("records") }
            map.entry("v") { $0.writeArray([parties.third]) { $0.write(bytes: $1.publicKey) } }
            map.entry("r") { oneRow(delta)(&$0) }
        }
        XCTAssertThrowsError(try decode(outside.bytes), "a delta row outside a push") { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .malformedFrame, "\(error)")
        }
        let (_, lean) = try XCTUnwrap(try frames().first)
        XCTAssertThrowsError(try decode(lean.encoded(), impliedAccount: false), "no tag where the transport proves nothing") { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .missingField, "\(error)")
        }
    }
}
