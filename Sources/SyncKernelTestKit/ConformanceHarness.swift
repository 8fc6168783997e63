import Foundation
import SyncKernel

/// Temporary stores of one namespace and the moves the checks make on them.
///
/// Invariant: every store lives in a private temporary folder removed when the harness goes.
final class ConformanceHarness<Subject: NamespaceConformance> {
    typealias Namespace = Subject.Namespace
    typealias Row = Namespace.Row

    let directory: String
    let namespaces: NamespaceSet
    private var counter = 0

    init() throws {
        directory = NSTemporaryDirectory() + "synckernel-conformance-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        namespaces = try NamespaceSet([Namespace.self])
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    static func device(_ index: Int) throws -> DeviceID {
        try DeviceKeyPair(seed: SHA256.hash(domain: Array("synckernel.testkit.device".utf8), [UInt8(truncatingIfNeeded: index)])).deviceID
    }

    /// A fresh store configured as device `index`.
    func store(device index: Int) throws -> KernelStore {
        counter += 1
        let store = try KernelStore(path: "\(directory)/store-\(counter).sqlite", namespaces: namespaces)
        try store.configureDevice(try Self.device(index))
        return store
    }

    func save(_ row: Row, in store: KernelStore) throws {
        try store.write(Namespace.self) { tx throws(SyncKernelError) in try tx.save(row) }
    }

    /// `puller` pulls the namespace from `responder` with the spec's range request.
    func pull(into puller: KernelStore, from responder: KernelStore) throws {
        for response in try responder.respond(to: puller.reconcileRequest(for: Namespace.name)) {
            try puller.apply(response)
        }
    }

    /// Everything `responder` holds, as one response (rows and tombstones), nil when it holds nothing.
    func everything(_ responder: KernelStore) throws -> ReconcileResponse? {
        let parts = try responder.respond(to: ReconcileRequest(namespace: Namespace.name, buckets: []))
        guard !parts.isEmpty else { return nil }
        return ReconcileResponse(namespace: Namespace.name, rows: parts.flatMap(\.rows), tombstones: parts.flatMap(\.tombstones))
    }

    func leafHash(_ store: KernelStore, _ key: [UInt8]) throws -> [UInt8]? {
        try store.leafHash(namespace: Namespace.name, key: key)
    }

    /// The two rows' leaves decoded item by item, marking the items that differ.
    static func describe(_ left: Row?, _ right: Row?, labels: (String, String)) -> [String] {
        func items(_ row: Row?) -> [String] {
            guard let row else { return ["(no row)"] }
            var items = (try? CBORReader.decodeSequence(Namespace.leafEncoding(of: row))) ?? []
            if items.count == 1, case .array(let fields) = items[0] { items = fields }
            return items.map(\.diagnostic)
        }
        let (a, b) = (items(left), items(right))
        var lines = ["leaf items, \(labels.0) | \(labels.1):"]
        for index in 0..<max(a.count, b.count) {
            let (x, y) = (index < a.count ? a[index] : "-", index < b.count ? b[index] : "-")
            lines.append("  \(x == y ? " " : "≠") [\(index)] \(x)" + (x == y ? "" : "  |  \(y)"))
        }
        return lines
    }

    /// Runs a subject hook inside a write: its own `SyncKernelError`s pass through; anything else
    /// it throws becomes `namespaceRefused`.
    static func rethrowing<Value>(_ body: () throws -> Value) throws(SyncKernelError) -> Value {
        do {
            return try body()
        } catch let error as SyncKernelError {
            throw error
        } catch {
            throw SyncKernelError(.namespaceRefused, "a conformance subject hook failed")
        }
    }

    /// The hashed fields whose leaf contributions differ between two rows (else those whose
    /// values differ).
    static func blame(_ left: Row, _ right: Row) -> [String] {
        let byLeaf = Namespace.schema.fields.filter { $0.role == .hashed && $0.leafValue(left) != $0.leafValue(right) }.map(\.name)
        return byLeaf.isEmpty ? DeclaredFields<Subject>().hashed.filter { $0.read(left) != $0.read(right) }.map(\.name) : byLeaf
    }
}
