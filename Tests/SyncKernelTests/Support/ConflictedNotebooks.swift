import Foundation
import NotebookNamespace
import SyncKernel
import XCTest

extension TestWorld {
    /// Two closed store files (devices 0 and 1, checkpointed) holding one note both devices
    /// edited concurrently, converged with the conflict kept: `first` written on device 0 and
    /// synced, then `edits[0]` on device 0 and `edits[1]` on device 1 while partitioned, then
    /// healed. Returns their paths.
    func conflictedNotebooks(noteID: [UInt8], first: String, edits: (String, String)) throws -> (a: String, b: String) {
        let note = { (body: String, seconds: Double) in
            Note(id: noteID, title: "groceries", body: body, createdAt: Date(timeIntervalSince1970: 1_000),
                 updatedAt: Date(timeIntervalSince1970: seconds))
        }
        let fleet = try fleet(2, namespaces: [NotebookNamespace.self])
        fleet.announceAll()
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note(first, 1_000)) }
        fleet.run(until: 5_000)
        fleet.partition([[0], [1]])
        try fleet.write(on: 0, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note(edits.0, 2_000)) }
        try fleet.write(on: 1, NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note(edits.1, 2_000)) }
        fleet.heal()
        fleet.announceAll()
        fleet.run(until: 30_000)
        XCTAssertTrue(fleet.allRootsMatch)
        for replica in fleet.replicas {
            try replica.store.checkpoint()
            replica.store.close()
        }
        return (directory + "/store-1.sqlite", directory + "/store-2.sqlite")
    }
}
