import Foundation
import MessagesNamespace
import NotebookNamespace
import SettingsNamespace
import SyncKernel

/// One replica over a `KernelStore` on a fresh SQLite file in a temporary folder, as the
/// replica target and the corpus builder set it up.
///
/// Invariant: a harness built with the same `device`, `mode` and `seedRows` holds the same rows,
/// versions and digest every time (fixed keys, fixed dates, fixed device keys), so a recorded
/// exchange replays against a fresh one; its files are removed when it is released.
final class ReplicaHarness {
    /// The account every harness and every seed frame carries.
    static let account = SHA256.hash(domain: Array("synckernel.fuzz.account".utf8), [1])
    /// The namespaces every harness store holds.
    static let namespaceTypes: [any SyncNamespace.Type] = [NotebookNamespace.self, MessagesNamespace.self, SettingsNamespace.self]
    /// The harness's schema and namespace names, what its replicas read a compact push's
    /// namespace position against (nil only if the namespaces could not be declared).
    static let positions: NamespacePositions? = (try? NamespaceSet(namespaceTypes)).map {
        NamespacePositions(schema: $0.schema, names: $0.names)
    }

    /// Where the store files go: `/dev/shm` when the machine has it (the store syncs every commit,
    /// which on a disk costs more than the checks), else the system's temporary folder.
    static let temporaryFolder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory()

    let path: String
    let store: KernelStore
    let replica: Replica
    let devices: [DeviceID]

    /// Device `index` of the harness (0, 1 or 2): fixed keys, the same in every build.
    static func device(_ index: Int) throws(SyncKernelError) -> DeviceID {
        try DeviceKeyPair(seed: [UInt8](repeating: UInt8(index + 1), count: 32)).deviceID
    }

    /// Creates device `device` (0, 1 or 2) with siblings the other two, holding `seedRows`'s rows.
    init(device: Int, mode: ReconcileMode, seedRows: Int) throws(SyncKernelError) {
        path = Self.temporaryFolder + "synckernel-fuzz-\(UUID().uuidString).sqlite"
        devices = try (0..<3).map(Self.device)
        store = try KernelStore(path: path, namespaces: NamespaceSet(Self.namespaceTypes))
        replica = try Replica(device: devices[device], account: Self.account, siblings: devices, store: store, mode: mode)
        try Self.fill(store, seedRows: seedRows, offset: device)
    }

    deinit {
        store.close()
        for suffix in ["", "-wal", "-shm", "-lease"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    /// The 16-byte id of note `index`.
    static func noteID(_ index: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: index)] + [UInt8](repeating: 0x5a, count: 15)
    }

    /// The seconds since 1970 of step time `now` (milliseconds), whole.
    static func date(_ now: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(now / 1_000))
    }

    /// Applies the local edit `key`/`value` at `now`: bit 7 of `key` deletes note `key & 7`, bit
    /// 6 sets setting `key & 7`, otherwise note `key & 7` is saved with content from `value`.
    func edit(key: UInt8, value: UInt8, now: Int64) throws(SyncKernelError) {
        let index = Int(key & 7)
        if key & 0x80 != 0 {
            try replica.write(NotebookNamespace.self, now: now) { tx throws(SyncKernelError) in try tx.delete(key: Self.noteID(index)) }
        } else if key & 0x40 != 0 {
            try replica.write(SettingsNamespace.self, now: now) { tx throws(SyncKernelError) in
                try tx.set("pref.\(index)", to: "value \(value)", now: now / 1_000)
            }
        } else {
            let note = Note(id: Self.noteID(index), title: "note \(index)", body: "body \(value)", tags: value & 1 == 0 ? [] : ["t"],
                            createdAt: Self.date(1_700_000_000_000), updatedAt: Self.date(now))
            try replica.write(NotebookNamespace.self, now: now) { tx throws(SyncKernelError) in try tx.save(note) }
        }
    }

    /// Writes the rows of seed `seedRows` (none for 0): notes offset by `offset` so two devices
    /// share some keys with different content, a setting, and (from device 1 on) a message.
    private static func fill(_ store: KernelStore, seedRows: Int, offset: Int) throws(SyncKernelError) {
        guard seedRows > 0 else { return }
        let base = Date(timeIntervalSince1970: 1_700_000_000)
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for index in offset..<(offset + seedRows) {
                try tx.save(Note(id: noteID(index), title: "note \(index) on \(offset)", body: "seed \(seedRows)",
                                 createdAt: base, updatedAt: base.addingTimeInterval(TimeInterval(offset))))
            }
        }
        try store.write(SettingsNamespace.self) { tx throws(SyncKernelError) in
            try tx.set("pref.seed", to: "device \(offset)", now: 1_700_000_000 + Int64(offset))
        }
        guard offset > 0 else { return }
        try store.write(MessagesNamespace.self) { tx throws(SyncKernelError) in
            try tx.record(Message(messageID: noteID(100 + offset), conversationID: noteID(200), sentAt: base,
                                  isOutgoing: true, body: "hello from \(offset)"))
        }
    }
}
