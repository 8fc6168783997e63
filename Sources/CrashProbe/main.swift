import Foundation
import NotebookNamespace
import SyncKernel

/// `synckernel-crashprobe PATH ROWS`: a process for crash tests to kill.
///
/// It applies, over and over, a `reconcile_resp` that rewrites every one of ROWS notebook rows to
/// the next generation (title `gen-N`, vector `{sibling: N}`), printing `committed N` after each
/// commit. A test kills it with SIGKILL at an arbitrary moment and checks that the store holds
/// one whole generation, never a mix.
let arguments = CommandLine.arguments
guard arguments.count == 3, let rows = Int(arguments[2]), rows > 0 else {
    FileHandle.standardError.write(Data("usage: synckernel-crashprobe PATH ROWS\n".utf8))
    exit(64)
}
do {
    let store = try KernelStore(path: arguments[1], namespaces: NamespaceSet([NotebookNamespace.self]))
    try store.configureDevice(try DeviceKeyPair(seed: [UInt8](repeating: 1, count: 32)).deviceID)
    let sibling = try DeviceKeyPair(seed: [UInt8](repeating: 2, count: 32)).deviceID
    let epoch = Date(timeIntervalSince1970: 1_800_000_000)
    let ids = (0..<rows).map { index in (0..<16).map { UInt8(truncatingIfNeeded: index >> (8 * ($0 % 4))) } }
    var generation: UInt64 = 1
    while true {
        let shipped = ids.map { id in
            ShippedRow(row: NotebookNamespace.rowEncoding(of: Note(id: id, title: "gen-\(generation)", body: "body \(generation)",
                                                                 createdAt: epoch, updatedAt: epoch.addingTimeInterval(TimeInterval(generation)))),
                       vector: VersionVector([sibling: generation]))
        }
        try store.apply(ReconcileResponse(namespace: NotebookNamespace.name, rows: shipped, tombstones: []))
        FileHandle.standardOutput.write(Data("committed \(generation)\n".utf8))
        generation += 1
    }
} catch {
    FileHandle.standardError.write(Data("synckernel-crashprobe: \(error)\n".utf8))
    exit(1)
}
