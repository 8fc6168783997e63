import Foundation
import SyncKernel
import XCTest

final class RestoredStoreTests: XCTestCase {
    private typealias Row = RecordNamespace.Row

    private func save(_ row: Row, _ store: KernelStore) throws {
        try store.write(RecordNamespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
    }

    private func pull(_ puller: KernelStore, from responder: KernelStore) throws {
        let request = try puller.reconcileRequest(for: RecordNamespace.name)
        for response in try responder.respond(to: request) { try puller.apply(response) }
    }

    private func sync(_ a: KernelStore, _ b: KernelStore) throws {
        try pull(a, from: b)
        try pull(b, from: a)
        try pull(a, from: b)
    }

    private func values(_ store: KernelStore, _ id: String) throws -> Set<String> {
        let response = try store.respond(toKeys: [Array(id.utf8)], namespace: RecordNamespace.name)
        var out: Set<String> = []
        for shipped in response.flatMap(\.rows) {
            out.insert(try RecordNamespace.decodeRow(bytes: shipped.row).value)
            for sibling in shipped.siblings { out.insert(try RecordNamespace.decodeRow(bytes: sibling.row).value) }
        }
        return out
    }

    private func reproduce(inPlace: Bool) throws {
        let world = try TestWorld()
        let path = world.path()
        let aside = world.path("aside")
        var store = try world.store(device: 0, path: path)
        let sibling = try world.store(device: 1)
        try save(Row(id: "k", value: "v0", updatedAt: 1), store)
        try sync(store, sibling)
        try store.checkpoint()
        store.close()
        try FileManager.default.copyItem(atPath: path, toPath: aside)
        store = try world.store(device: 0, path: path)
        try save(Row(id: "k", value: "original", updatedAt: 2), store)
        try sync(store, sibling)
        try store.checkpoint()
        store.close()
        if inPlace {
            let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: try Data(contentsOf: URL(fileURLWithPath: aside)))
            try handle.close()
        } else {
            try FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: aside, toPath: path)
        }
        store = try world.store(device: 0, path: path)
        try save(Row(id: "k", value: "restored", updatedAt: 3), store)
        try sync(store, sibling)
        XCTAssertEqual(try values(store, "k"), ["original", "restored"])
        XCTAssertEqual(try values(sibling, "k"), ["original", "restored"])
    }

    func testReproNewFile() throws { try reproduce(inPlace: false) }
    func testReproInPlace() throws { try reproduce(inPlace: true) }
}
