import Foundation
import NatsRelay
import NotebookNamespace
import SyncDevice
import SyncEnvelope
import SyncKernel

/// The README's "ten lines an app writes", compiled here so they cannot rot (a test checks that
/// the README shows exactly the lines between the markers).
enum ReadmeExample {
    /// Runs the README's lines for device `name` of the account at `accountDirectory`, its store at
    /// `storePath`, through the relay at `relayURL`; returns what it printed.
    static func run(accountDirectory: String, name: String, storePath: String, relayURL: String) async throws -> [String] {
        var printed: [String] = []
        func print(_ line: String) { printed.append(line) }
        let noteID = [UInt8](repeating: 7, count: 16)
        // README:begin
        let device = SyncDevice(SyncDeviceConfiguration(account: AccountDirectory(path: accountDirectory), name: name,
                                                        storePath: storePath, namespaces: try NamespaceSet([NotebookNamespace.self]),
                                                        relay: NatsRelayOptions(servers: [relayURL])))
        try await device.start()
        let note = Note(id: noteID, title: "hello", body: "from \(name)", createdAt: .now, updatedAt: .now)
        try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
        for await status in device.status where status.siblings.allSatisfy(\.inSync) {
            print(status.json())
            break
        }
        await device.stop()
        // README:end
        return printed
    }
}
