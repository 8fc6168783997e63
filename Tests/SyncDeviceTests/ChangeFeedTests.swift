import Foundation
import NotebookNamespace
import SyncDevice
import SyncKernel
import TestServerSupport
import TestServers
import XCTest

/// `SyncDevice.changes`: the feed yields what the store holds, then every later commit (local, or
/// from a sibling, named), resumes from a stored cursor, and ends when its task is cancelled.
final class ChangeFeedTests: XCTestCase {
    /// Collects changes from `feed` until `count` arrived (or the deadline passed).
    private func take(_ count: Int, from feed: ChangeFeed<NotebookNamespace>,
                      within seconds: Int = 30) async throws -> [RowChange<Note>] {
        try await withThrowingTaskGroup(of: [RowChange<Note>]?.self) { group in
            group.addTask {
                var taken: [RowChange<Note>] = []
                for try await change in feed {
                    taken.append(change)
                    if taken.count == count { break }
                }
                return taken
            }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = try await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
    }

    func testTheFeedYieldsTheStoreThenLocalAndSiblingCommitsAndResumesFromACursor() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let devices = try (0..<2).map { index in
            let device = SyncDevice(try world.configuration(index, servers: [server.url]))
            addTeardownBlock { await device.stop() }
            return device
        }
        let feed = devices[0].changes(NotebookNamespace.self)
        for device in devices { try await device.start() }
        try await devices[0].write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for index in 0..<5 { try tx.save(DeviceWorld.note(index)) }
        }
        let local = try await take(5, from: feed)
        XCTAssertEqual(local.map(\.row?.title), (0..<5).map { "note \($0)" })
        XCTAssertTrue(local.allSatisfy { $0.origin == .local })
        let sibling = try world.account.certificate(name: world.names[1]).device
        let later = devices[0].changes(NotebookNamespace.self, after: local.last?.cursor ?? 0)
        try await devices[1].write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(DeviceWorld.note(100)) }
        let merged = try await take(1, from: later)
        XCTAssertEqual(merged.map(\.row?.title), ["note 100"])
        XCTAssertEqual(merged.first?.origin, .sibling(sibling), "the sibling's write arrives as its change")

        let again = try await take(6, from: devices[0].changes(NotebookNamespace.self))
        XCTAssertEqual(again.map(\.cursor), (local + merged).map(\.cursor), "a new iteration from 0 reads the same changes")
        try await devices[0].write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            try tx.delete(key: DeviceWorld.note(2).id)
        }
        let deleted = try await take(1, from: devices[0].changes(NotebookNamespace.self, after: merged.last?.cursor ?? 0))
        XCTAssertEqual(deleted.map(\.key), [DeviceWorld.note(2).id])
        XCTAssertNil(deleted.first?.row, "a delete is a change with no row")

        let pending = try await devices[0].pendingChanges(NotebookNamespace.self)
        XCTAssertEqual(Set(pending.keys), [sibling], "one entry per sibling")

        let idle = Task { () throws -> Int in
            var seen = 0
            for try await _ in devices[0].changes(NotebookNamespace.self, after: deleted.last?.cursor ?? 0) { seen += 1 }
            return seen
        }
        idle.cancel()
        let seen = try await idle.value
        XCTAssertEqual(seen, 0, "a cancelled iteration ends")
    }
}
