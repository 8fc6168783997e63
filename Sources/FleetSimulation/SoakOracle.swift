import SyncKernel

/// The soak's oracle: one extra store, never on the relay, that merges every row version any
/// device of the fleet wrote, through the kernel's own merge (`KernelStore.apply`).
///
/// Invariants: it starts as a copy of the fleet's seed store (the writes every device starts
/// from); after each acknowledged local write, exactly what that write changed on the writer
/// (its rows with their vectors and concurrent versions, and its new delete versions, read
/// through the writer's shipping path) is applied to it, and nothing else ever is: it never sees
/// a merge a device made. Since the merge is order-free, a fleet that lost no write and undid no
/// delete converges to exactly its state; `mismatches(_:device:)` names every key where a
/// device differs from it.
final class SoakOracle {
    /// The oracle's store.
    let store: KernelStore
    /// Write transactions merged into it.
    private(set) var writesMerged = 0

    /// Opens the oracle over `path` (a copy of the seed store) as `device`, an identity no fleet
    /// device has, drawing epoch nonces from `entropy`.
    init(path: String, namespaces: NamespaceSet, device: DeviceID, entropy: EntropySource) throws(SyncKernelError) {
        store = try KernelStore(path: path, namespaces: namespaces, entropy: entropy)
        try store.configureDevice(device)
    }

    /// Merges what a write on `writer` changed in `before.namespace`, `before` being the
    /// namespace read just before the write; returns whether the write changed anything.
    @discardableResult
    func merge(writeOn writer: KernelStore, before: SoakSnapshot) throws(SyncKernelError) -> Bool {
        let after = try SoakSnapshot(writer, namespace: before.namespace)
        guard let changes = after.changes(since: before) else { return false }
        try store.apply(changes)
        writesMerged += 1
        return true
    }

    /// Every way the synced rows of `other` (device `index`) differ from the oracle's, one
    /// failure per kind with up to three example keys: a row the oracle holds and the device
    /// lacks (`writeLost`), a row the device holds that the oracle deleted (`deleteUndone`) or
    /// never saw (`unexpectedRow`), a row both hold in different versions or with different
    /// concurrent versions kept beside it (`versionDiffers`), and equal rows under different roots
    /// otherwise (`structure`).
    func mismatches(_ other: KernelStore, device index: Int) throws(SyncKernelError) -> [SoakFailure] {
        var examples: [SoakFailure.Kind: [String]] = [:]
        var counts: [SoakFailure.Kind: Int] = [:]
        func note(_ kind: SoakFailure.Kind, _ namespace: String, _ key: [UInt8], _ detail: String? = nil) {
            counts[kind, default: 0] += 1
            if examples[kind, default: []].count < 3 {
                examples[kind, default: []].append("\(namespace) key \(Hex.short(key))" + (detail.map { " \($0)" } ?? ""))
            }
        }
        for namespace in store.namespaces.names {
            let expected = Dictionary(try store.leaves(namespace: namespace).map { ($0.key, $0.hash) }) { first, _ in first }
            let actual = Dictionary(try other.leaves(namespace: namespace).map { ($0.key, $0.hash) }) { first, _ in first }
            let deleted = Set(try store.tombstones(namespace: namespace).map(\.key))
            for key in expected.keys.sorted(by: [UInt8].keyPrecedes) {
                guard let hash = actual[key] else {
                    note(.writeLost, namespace, key)
                    continue
                }
                if hash != expected[key] { note(.versionDiffers, namespace, key) }
            }
            for key in actual.keys.sorted(by: [UInt8].keyPrecedes) where expected[key] == nil {
                note(deleted.contains(key) ? .deleteUndone : .unexpectedRow, namespace, key)
            }
        }
        if counts.isEmpty, other.stateDigest().roots != store.stateDigest().roots {
            for namespace in store.namespaces.causalEntities {
                let mine = Set(try store.conflictedKeys(namespace: namespace))
                let theirs = Set(try other.conflictedKeys(namespace: namespace))
                for key in mine.union(theirs).sorted(by: [UInt8].keyPrecedes) {
                    let expected = try store.conflictVersions(namespace: namespace, key: key).map(\.vector)
                    let actual = try other.conflictVersions(namespace: namespace, key: key).map(\.vector)
                    guard Set(expected) != Set(actual) else { continue }
                    note(.versionDiffers, namespace, key, "kept versions: oracle \(expected.count), device \(actual.count)")
                }
            }
            if counts.isEmpty {
                counts[.structure] = 1
                examples[.structure] = ["equal rows under different roots"]
            }
        }
        return counts.keys.sorted { $0.rawValue < $1.rawValue }.map { kind in
            SoakFailure(kind: kind, detail: "device \(index): \(counts[kind] ?? 0) keys, e.g. "
                        + (examples[kind] ?? []).joined(separator: ", "))
        }
    }
}
