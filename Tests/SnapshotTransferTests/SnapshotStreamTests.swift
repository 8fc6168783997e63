import NotebookNamespace
@testable import SnapshotTransfer
import SyncKernel
import TestServerSupport
import XCTest

/// The plaintext snapshot: a store paged out and imported insert-if-absent, in bounded pages and
/// transactions, with every key's bookkeeping carried whole.
final class SnapshotStreamTests: XCTestCase {
    func testARoundTripCarriesRowsVectorsConcurrentVersionsAndDeletes() async throws {
        let world = try SnapshotWorld(seed: 3)
        let source = try world.richNotebook("source", rows: 400)
        XCTAssertFalse(try source.tombstones(namespace: NotebookNamespace.name).isEmpty, "the source holds deletes")
        let keys = try source.leaves(namespace: NotebookNamespace.name).map(\.key)
        let concurrent = try keys.filter { try !source.concurrentRows(NotebookNamespace.self, key: $0).isEmpty }
        XCTAssertFalse(concurrent.isEmpty, "the source keeps concurrent versions")
        let target = try world.store("target", device: 2)
        let outcome = try await SnapshotWorld.importPlaintext(try SnapshotWorld.plaintext(of: source, pageKeys: 37), into: target,
                                                         rowsPerTransaction: 50)
        XCTAssertEqual(target.stateDigest(), source.stateDigest())
        XCTAssertEqual(try target.recomputedStateDigest(), source.stateDigest())
        try target.verifyStructures()
        XCTAssertEqual(try SnapshotWorld.bookkeeping(of: target), try SnapshotWorld.bookkeeping(of: source))
        for key in concurrent {
            XCTAssertEqual(try target.concurrentRows(NotebookNamespace.self, key: key), try source.concurrentRows(NotebookNamespace.self, key: key))
        }
        XCTAssertEqual(outcome.keysPresent, 0)
        XCTAssertEqual(outcome.keysRefused, 0)
        XCTAssertEqual(outcome.rowsImported, keys.count)
        XCTAssertEqual(outcome.deletesImported, try source.tombstones(namespace: NotebookNamespace.name).count)
        XCTAssertNil(outcome.epochChange)
    }

    func testAReImportChangesNothing() async throws {
        let world = try SnapshotWorld(seed: 4)
        let source = try world.richNotebook("source", rows: 300)
        let records = try SnapshotWorld.plaintext(of: source)
        let target = try world.store("target", device: 2)
        let first = try await SnapshotWorld.importPlaintext(records, into: target)
        let digest = target.stateDigest()
        let counters = target.changeCounters()
        let books = try SnapshotWorld.bookkeeping(of: target)
        let second = try await SnapshotWorld.importPlaintext(records, into: target)
        XCTAssertEqual(second.keysImported, 0)
        XCTAssertEqual(second.keysPresent, first.keysImported)
        XCTAssertEqual(target.stateDigest(), digest)
        XCTAssertEqual(target.changeCounters(), counters, "no item moved")
        XCTAssertEqual(try SnapshotWorld.bookkeeping(of: target), books)
    }

    func testAKeyAlreadyHeldIsLeftAlone() async throws {
        let world = try SnapshotWorld(seed: 5)
        let source = try world.store("source", device: 0)
        let notes = world.notes(20)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        let target = try world.store("target", device: 2)
        var mine = notes[3]
        mine.body = "the target's own version"
        try target.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.save(mine)
            try tx.save(notes[4])
            try tx.delete(key: notes[4].id)
        }
        let before = try target.version(namespace: NotebookNamespace.name, key: mine.id)
        let outcome = try await SnapshotWorld.importPlaintext(try SnapshotWorld.plaintext(of: source), into: target)
        XCTAssertEqual(outcome.keysPresent, 2, "a row and a delete already held")
        XCTAssertEqual(outcome.keysImported, 18)
        XCTAssertEqual(try target.row(NotebookNamespace.self, key: mine.id)?.body, "the target's own version")
        XCTAssertEqual(try target.version(namespace: NotebookNamespace.name, key: mine.id), before)
        XCTAssertNil(try target.row(NotebookNamespace.self, key: notes[4].id), "the delete held stays")
        try target.verifyStructures()
    }

    func testPagesStayWithinTheirBoundsAndKeepEachKeyWhole() async throws {
        let world = try SnapshotWorld(seed: 6)
        let source = try world.richNotebook("source", rows: 500)
        let records = try SnapshotWorld.plaintext(of: source, pageKeys: 16, pageBytes: 2_000)
        var parser = SnapshotRecordParser()
        var seen: Set<[UInt8]> = []
        var pages = 0
        for record in records { parser.feed(record) }
        while let record = try parser.nextRecord() {
            guard record.type == .page else { continue }
            pages += 1
            let frame = try SyncFrame(decoding: record.payload, account: SnapshotWorld.account)
            guard case .reconcileResponse(let response) = frame.body else { return XCTFail("a page that is not a response") }
            let rowKeys = try response.rows.map { try NotebookNamespace.decodeRow(bytes: $0.row).id }
            let keys = Set(rowKeys + response.tombstones.map(\.key))
            XCTAssertLessThanOrEqual(keys.count, 16)
            XCTAssertTrue(seen.isDisjoint(with: keys), "no key's share is split across pages")
            seen.formUnion(keys)
            XCTAssertLessThanOrEqual(record.payload.count, 2_000 + 4_096, "about pageBytes, one key over at most")
        }
        XCTAssertGreaterThan(pages, 500 / 16)
        var expected = Set(try source.leaves(namespace: NotebookNamespace.name).map(\.key))
        expected.formUnion(try source.tombstones(namespace: NotebookNamespace.name).map(\.key))
        XCTAssertEqual(seen, expected, "every key once")
    }

    func testAPageOfEditedRowsNeverNamesMoreDevicesThanAnImportReads() async throws {
        let world = try SnapshotWorld(seed: 14)
        let source = try world.store("source", device: 0)
        var notes = world.notes(DeviceTable.maxDevices + 400)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        for index in notes.indices { notes[index].body = "edited" }
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        let records = try SnapshotWorld.plaintext(of: source, pageKeys: 2 * DeviceTable.maxDevices, pageBytes: 64 << 20)
        let target = try world.store("target", device: 2)
        _ = try await SnapshotWorld.importPlaintext(records, into: target)
        XCTAssertEqual(try SnapshotWorld.bookkeeping(of: target), try SnapshotWorld.bookkeeping(of: source),
                       "each edited row names its own creation dimension, and every page still reads")
    }

    func testAnEmptyStoreMakesAHeaderAndATrailer() async throws {
        let world = try SnapshotWorld(seed: 7)
        let source = try world.store("source", device: 0)
        let records = try SnapshotWorld.plaintext(of: source)
        XCTAssertEqual(records.count, 2)
        let target = try world.store("target", device: 2)
        let outcome = try await SnapshotWorld.importPlaintext(records, into: target)
        XCTAssertEqual(outcome, SnapshotImportOutcome())
    }

    func testRejectASnapshotOfAnotherSchemaBeforeAnyPage() async throws {
        let world = try SnapshotWorld(seed: 8)
        let source = try world.store("source", device: 0)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in world.notes(5) { try tx.save(note) } }
        var records = try SnapshotWorld.plaintext(of: source)
        records[0] = SnapshotFormat.record(.header, SnapshotFormat.header(schema: SchemaFingerprint(value: 42)))
        let target = try world.store("target", device: 2)
        await assertThrowsAsync({ try await SnapshotWorld.importPlaintext(records, into: target) }) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .schemaMismatch)
        }
        XCTAssertEqual(target.itemCounts(), [0])
    }

    func testRejectPagesOfAnotherAccount() async throws {
        let world = try SnapshotWorld(seed: 9)
        let source = try world.store("source", device: 0)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in world.notes(5) { try tx.save(note) } }
        let records = try SnapshotWorld.plaintext(of: source, account: SnapshotWorld.otherAccount)
        let target = try world.store("target", device: 2)
        await assertThrowsAsync({ try await SnapshotWorld.importPlaintext(records, into: target) }) { error in
            XCTAssertEqual((error as? SyncKernelError)?.code, .foreignAccount)
        }
        XCTAssertEqual(target.itemCounts(), [0])
    }

    func testRejectMalformedRecordStreams() async throws {
        let world = try SnapshotWorld(seed: 10)
        let source = try world.store("source", device: 0)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in world.notes(30) { try tx.save(note) } }
        let records = try SnapshotWorld.plaintext(of: source, pageKeys: 10)
        XCTAssertEqual(records.count, 5)
        let header = records[0]
        let trailer = records[4]
        let heartbeat = SyncFrame(account: SnapshotWorld.account, schema: source.namespaces.schema, body: .heartbeat).encoded()
        let cases: [(String, [[UInt8]])] = [
            ("no header", Array(records.dropFirst())),
            ("no trailer", Array(records.dropLast())),
            ("a page missing", [records[0], records[1], records[3], records[4]]),
            ("a second header", [header] + records),
            ("a record after the trailer", records + [records[1]]),
            ("a trailer counting other rows", Array(records.dropLast()) + [SnapshotFormat.record(.trailer,
                                                                         SnapshotFormat.trailer(pages: 3, rows: 31, deletes: 0))]),
            ("an unknown record type", [header, [9, 0, 0, 0, 1, 0], trailer]),
            ("a header of the wrong length", [[1, 0, 0, 0, 16] + Array(header.dropFirst(5)) + [0]] + Array(records.dropFirst())),
            ("a page length beyond the bound", [header, [2, 0xff, 0xff, 0xff, 0xff]]),
            ("an empty page", [header, [2, 0, 0, 0, 0], trailer]),
            ("a page that is not a response", [header, SnapshotFormat.record(.page, heartbeat), trailer]),
            ("a trailing partial record", records + [[2, 0, 0]]),
        ]
        for (name, stream) in cases {
            let target = try world.store("target-\(name.hashValue & 0xffff)", device: 2)
            await assertThrowsAsync({ try await SnapshotWorld.importPlaintext(stream, into: target) }, name) { error in
                XCTAssertEqual((error as? SnapshotTransferError)?.code, .malformedSnapshot, name)
            }
        }
    }

    func testRejectAKeyWhoseShareDoesNotReadAndImportTheRest() async throws {
        let world = try SnapshotWorld(seed: 11)
        let source = try world.store("source", device: 0)
        let notes = world.notes(4)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        let page = try source.snapshotPage(namespace: NotebookNamespace.name, after: nil, maxKeys: 10, maxBytes: 1 << 20)
        var rows = page.response.rows
        rows[1] = ShippedRow(row: [0xff, 0x00], vector: rows[1].vector)
        rows[2] = ShippedRow(row: rows[2].row, vector: VersionVector([try world.device(5): VersionVector.maxCounter + 1]))
        let target = try world.store("target", device: 2)
        let outcome = try target.importAbsent([ReconcileResponse(namespace: NotebookNamespace.name, rows: rows, tombstones: [])])
        XCTAssertEqual(outcome.keysRefused, 2)
        XCTAssertEqual(outcome.keysImported, 2)
        XCTAssertEqual(target.itemCounts(), [2])
        try target.verifyStructures()
    }

    func testAnImportedVectorCountingThisDeviceTakesAFreshEpoch() async throws {
        let world = try SnapshotWorld(seed: 12)
        let source = try world.store("source", device: 0)
        let notes = world.notes(3)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
        var edited = notes[0]
        edited.body = "edited"
        edited.updatedAt = SnapshotWorld.epoch.addingTimeInterval(5)
        try source.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(edited) }
        let records = try SnapshotWorld.plaintext(of: source)
        let restored = try world.store("restored", device: 0)
        let epoch = restored.deviceEpoch
        let outcome = try await SnapshotWorld.importPlaintext(records, into: restored)
        XCTAssertEqual(outcome.epochChange?.reason, .peerEvidence, "a store absorbing its own device's writes lost its history")
        XCTAssertNotEqual(restored.deviceEpoch, epoch)
    }

    func testAStopInsideAnImportTransactionRollsItBackAndKeepsWhatCommitted() async throws {
        let world = try SnapshotWorld(seed: 13)
        let source = try world.richNotebook("source", rows: 400)
        let records = try SnapshotWorld.plaintext(of: source, pageKeys: 16, pageBytes: 1 << 20)
        let sourceBooks = try SnapshotWorld.bookkeeping(of: source)

        let pages = try source.snapshotPage(namespace: NotebookNamespace.name, after: nil, maxKeys: 16, maxBytes: 1 << 20)
        let single = try world.store("single", device: 2)
        var asked = 0
        XCTAssertThrowsError(try single.importAbsent([pages.response, pages.response, pages.response]) {
            asked += 1
            return asked > 2
        }) { error in XCTAssertEqual((error as? SyncKernelError)?.code, .snapshotStopped) }
        XCTAssertEqual(asked, 3, "asked before each page, and the third page is never written")
        XCTAssertEqual(single.itemCounts(), [0], "the transaction under way rolled back whole")
        try single.verifyStructures()

        for stopAfter in [5, 23, 41] {
            let target = try world.store("target-\(stopAfter)", device: 2)
            var asks = 0
            var importer = SnapshotImporter(store: target, account: SnapshotWorld.account, rowsPerTransaction: 100) {
                asks += 1
                return asks > stopAfter
            }
            await assertThrowsAsync({
                for record in records { try await importer.consume(record) }
                _ = try await importer.finish()
            }) { error in XCTAssertEqual((error as? SyncKernelError)?.code, .snapshotStopped, "stop after \(stopAfter)") }
            XCTAssertEqual(try SnapshotWorld.bookkeeping(of: target).count, importer.outcome.keysImported,
                           "the store holds exactly what the committed transactions imported (stop after \(stopAfter))")
            XCTAssertLessThan(importer.outcome.keysImported, 400, "the stop came before the end")
            try target.verifyStructures()
            _ = try await SnapshotWorld.importPlaintext(records, into: target)
            XCTAssertEqual(try SnapshotWorld.bookkeeping(of: target), sourceBooks, "a later import completes it (stop after \(stopAfter))")
        }
    }
}
