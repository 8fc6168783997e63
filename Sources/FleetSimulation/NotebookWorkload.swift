import Foundation
import NotebookNamespace
import SyncKernel
import SyncKernelSimulator

/// Generates the simulator's notebook rows and the differences made on top of them.
///
/// Invariant: driven only by its seeded generator, so one seed gives one workload.
struct NotebookWorkload {
    /// Wall-clock time zero of the simulation (devices add virtual time and their skew).
    static let epoch = Date(timeIntervalSince1970: 1_790_000_000)

    private var random: SeededGenerator
    private static let words = ["sync", "merkle", "vector", "clock", "device", "relay", "digest", "leaf",
                                "bucket", "merge", "tombstone", "offload", "body", "note", "skew", "round"]

    init(random: SeededGenerator) {
        self.random = random
    }

    /// `count` notes every device starts with.
    mutating func sharedNotes(count: Int) -> [Note] {
        (0..<count).map { index in
            Note(id: random.bytes(16), title: "Note \(index)", body: sentence(words: 20),
                 tags: [Self.words[Int(random.next() % 16)]], createdAt: Self.epoch, updatedAt: Self.epoch)
        }
    }

    /// One local change on one device.
    struct Step {
        enum Change {
            case edit(id: [UInt8], body: String)
            case insert(Note)
            case delete(id: [UInt8])
        }

        let atMillis: Int64
        let device: Int
        let change: Change

        /// Applies the change; an edit of a row this device no longer holds does nothing.
        func apply(to tx: NamespaceTransaction<NotebookNamespace>, wallClock: Date) throws(SyncKernelError) {
            switch change {
            case .edit(let id, let body):
                guard var note = try tx.row(forKey: id), !note.bodyOffloaded else { return }
                note.body = body
                note.updatedAt = wallClock
                try tx.save(note)
            case .insert(var note):
                note.createdAt = wallClock
                note.updatedAt = wallClock
                try tx.save(note)
            case .delete(let id):
                try tx.delete(key: id)
            }
        }
    }

    /// `count` changes spread evenly over the first `spanMillis`: edits, inserts, deletes and
    /// concurrent edit pairs.
    mutating func differences(count: Int, devices: Int, existing: [[UInt8]], spanMillis: Int64) -> [Step] {
        var steps: [Step] = []
        var untouched = existing
        func takeRow(_ random: inout SeededGenerator) -> [UInt8]? {
            guard !untouched.isEmpty else { return nil }
            return untouched.remove(at: Int(random.next() % UInt64(untouched.count)))
        }
        while steps.count < count {
            let at = Int64(steps.count) * spanMillis / Int64(max(count, 1))
            let device = Int(random.next() % UInt64(devices))
            let roll = random.next() % 100
            if roll < 20, count - steps.count >= 2, let id = takeRow(&random) {
                let other = (device + 1 + Int(random.next() % UInt64(devices - 1))) % devices
                steps.append(Step(atMillis: at, device: device, change: .edit(id: id, body: sentence(words: 24))))
                steps.append(Step(atMillis: at, device: other, change: .edit(id: id, body: sentence(words: 24))))
            } else if roll < 60, let id = takeRow(&random) {
                steps.append(Step(atMillis: at, device: device, change: .edit(id: id, body: sentence(words: 22))))
            } else if roll < 85 || untouched.isEmpty {
                let note = Note(id: random.bytes(16), title: "New \(steps.count)", body: sentence(words: 18),
                                tags: ["new"], createdAt: Self.epoch, updatedAt: Self.epoch)
                steps.append(Step(atMillis: at, device: device, change: .insert(note)))
            } else if let id = takeRow(&random) {
                steps.append(Step(atMillis: at, device: device, change: .delete(id: id)))
            }
        }
        return steps
    }

    private mutating func sentence(words count: Int) -> String {
        (0..<count).map { _ in Self.words[Int(random.next() % UInt64(Self.words.count))] }.joined(separator: " ")
    }
}
