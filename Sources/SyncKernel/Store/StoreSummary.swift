/// What a store holds, in brief: the device it belongs to and, per namespace, how many items
/// (synced rows) it holds and the root its digest advertises.
///
/// Invariants: `namespaces` is sorted by name, each name once; a namespace's `items` and `root`
/// are those of its committed structure (`root` is the set-hash root of the digest, 32 bytes), so
/// two stores holding the same items in a namespace show the same `items` and `root` for it,
/// whatever order or device wrote them; the summary of a running store (`KernelStore.summary()`)
/// and the one read from its file (`KernelStore.summary(storedAt:)`) agree once the file holds
/// the same commits.
public struct StoreSummary: Sendable, Hashable {
    /// One namespace's items and root.
    public struct Namespace: Sendable, Hashable {
        /// The namespace's name.
        public let name: String
        /// Items (synced rows: device-derived rows are not counted) the namespace holds.
        public let items: Int64
        /// The set-hash root the digest advertises for the namespace (32 bytes).
        public let root: [UInt8]
        /// Keys holding live versions of more than one content (open conflicts); 0 for a namespace that keeps
        /// no versions; nil when the store's version table did not read (`synckernel check` says
        /// why).
        public let openConflicts: Int?

        /// A namespace's summary.
        public init(name: String, items: Int64, root: [UInt8], openConflicts: Int? = 0) {
            self.name = name
            self.items = items
            self.root = root
            self.openConflicts = openConflicts
        }
    }

    /// The device the store counts its writes as; nil for a store no device configured yet.
    public let device: DeviceID?
    /// Every namespace, sorted by name.
    public let namespaces: [Namespace]

    /// A summary; `namespaces` is sorted by name here.
    public init(device: DeviceID?, namespaces: [Namespace]) {
        self.device = device
        self.namespaces = namespaces.sorted { $0.name < $1.name }
    }
}
