import Foundation
import NotebookNamespace
import SyncDevice
import SyncKernel
import TestServerSupport
import TestServers
import XCTest

/// `SyncDevice.observe`: the value now, then the value after each commit that changed it (local
/// or a sibling's), nothing for commits outside the region or that leave the value as it was,
/// coalesced under load, ended by cancelling.
final class ObservationTests: XCTestCase {
    private func started(_ world: DeviceWorld, _ count: Int) async throws -> [SyncDevice] {
        let server = try await startNatsServer()
        var devices: [SyncDevice] = []
        for index in 0..<count {
            let device = SyncDevice(try world.configuration(index, servers: [server.url]))
            addTeardownBlock { await device.stop() }
            try await device.start()
            devices.append(device)
        }
        return devices
    }

    /// Records every value of `observation` from a task of its own (cancelled at the end).
    private func record<N: SyncNamespace, Value>(_ observation: Observation<N, Value>) -> Recorder<Value> {
        let recorder = Recorder<Value>()
        let task = Task {
            for try await value in observation { recorder.append(value) }
        }
        addTeardownBlock { task.cancel() }
        return recorder
    }

    private func save(_ indexes: [Int], titled title: String? = nil, on device: SyncDevice) async throws {
        try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for index in indexes {
                var note = DeviceWorld.note(index)
                if let title { note.title = title }
                try tx.save(note)
            }
        }
    }

    func testAKeysObservationYieldsTheRowNowThenEachChangeOfItOnly() async throws {
        let world = try DeviceWorld(devices: 2)
        let devices = try await started(world, 2)
        try await save([1, 2], on: devices[0])
        let key = DeviceWorld.note(1).id
        let titles = record(devices[0].observe(NotebookNamespace.self, key: key))
        let first = await titles.wait(timeout: .seconds(30)) { $0.count == 1 }
        XCTAssertTrue(first)
        XCTAssertEqual(titles.items.map { $0?.title }, ["note 1"])
        for round in 0..<5 { try await save([2, 3 + round], titled: "other \(round)", on: devices[0]) }
        try await save([1], titled: "note 1", on: devices[0])
        try await save([1], titled: "edited here", on: devices[0])
        let edited = await titles.wait(timeout: .seconds(30)) { $0.count >= 2 }
        XCTAssertTrue(edited)
        XCTAssertEqual(titles.items.map { $0?.title }, ["note 1", "edited here"],
                       "nothing for other keys, nothing for a save that left the row as it was")
        try await save([1], titled: "edited by the sibling", on: devices[1])
        let merged = await titles.wait(timeout: .seconds(30)) { $0.last??.title == "edited by the sibling" }
        XCTAssertTrue(merged, "a sibling's change arrives: \(titles.items.map { $0?.title })")
        try await devices[0].write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.delete(key: key) }
        let deleted = await titles.wait(timeout: .seconds(30)) { $0.last.map { $0 == nil } ?? false }
        XCTAssertTrue(deleted, "a delete yields nil")
        XCTAssertEqual(titles.items.count, 4, "one value per change: \(titles.items.map { $0?.title })")
    }

    func testAQueryOverAPrefixYieldsForItsKeysOnlyInCommitOrder() async throws {
        let world = try DeviceWorld(devices: 1)
        let devices = try await started(world, 1)
        let prefix = Array("note-1".utf8)
        let counts = record(devices[0].observe(NotebookNamespace.self, region: .prefix(prefix)) { reader throws(SyncKernelError) in
            try reader.rows(withPrefix: prefix, limit: 1_000).rows.count
        })
        let first = await counts.wait(timeout: .seconds(30)) { $0 == [0] }
        XCTAssertTrue(first, "\(counts.items)")
        try await save([2, 3, 4], on: devices[0])
        try await save([10], on: devices[0])
        let one = await counts.wait(timeout: .seconds(30)) { $0.last == 1 }
        XCTAssertTrue(one)
        XCTAssertEqual(counts.items, [0, 1], "writes outside the prefix yield nothing")
        for index in 100..<149 { try await save([index], on: devices[0]) }
        let all = await counts.wait(timeout: .seconds(30)) { $0.last == 50 }
        XCTAssertTrue(all, "\(counts.items)")
        XCTAssertEqual(counts.items, counts.items.sorted(), "values in commit order")
        XCTAssertEqual(Set(counts.items).count, counts.items.count, "never the same value twice")
    }

    func testAQueryOverAKeyRangeYieldsForItsKeysOnly() async throws {
        let world = try DeviceWorld(devices: 1)
        let devices = try await started(world, 1)
        let (start, end) = (Array(DeviceWorld.note(2).id), Array(DeviceWorld.note(3).id))
        let ids = record(devices[0].observe(NotebookNamespace.self, region: .range(from: start, below: end)) { reader throws(SyncKernelError) in
            try reader.rows(from: start, below: end, limit: 1_000).rows.map(\.key)
        })
        let first = await ids.wait(timeout: .seconds(30)) { $0 == [[]] }
        XCTAssertTrue(first, "\(ids.items)")
        try await save([1, 3, 30], on: devices[0])
        try await save([2], on: devices[0])
        let one = await ids.wait(timeout: .seconds(30)) { $0.count == 2 }
        XCTAssertTrue(one)
        try await save([4], on: devices[0])
        try await save([25], on: devices[0])
        let two = await ids.wait(timeout: .seconds(30)) { $0.count == 3 }
        XCTAssertTrue(two)
        XCTAssertEqual(ids.items, [[], [start], [start, Array(DeviceWorld.note(25).id)]],
                       "the start key is in the range, the end key and keys outside it yield nothing")
    }

    func testCommitsWhileTheConsumerIsBusyComeAsOneValueAfterTheLastAndCancellingEnds() async throws {
        let world = try DeviceWorld(devices: 1)
        let devices = try await started(world, 1)
        let observation = devices[0].observe(NotebookNamespace.self) { reader throws(SyncKernelError) in try reader.count() }
        var values = observation.makeAsyncIterator()
        let first = try await values.next()
        XCTAssertEqual(first, 0)
        for index in 0..<20 { try await save([index], on: devices[0]) }
        let coalesced = try await values.next()
        XCTAssertEqual(coalesced, 20, "twenty commits while nobody read: one value, the last")
        let waiting = Task { () throws -> Int? in
            var iterator = devices[0].observe(NotebookNamespace.self) { reader throws(SyncKernelError) in try reader.count() }
                .makeAsyncIterator()
            _ = try await iterator.next()
            return try await iterator.next()
        }
        waiting.cancel()
        let ended = try await waiting.value
        XCTAssertNil(ended, "a cancelled iteration ends with no value")
    }
}
