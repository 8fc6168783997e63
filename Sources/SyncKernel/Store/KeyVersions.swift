/// Reads a key's live versions (the visible row and the concurrent ones kept beside it) for the
/// conflict API, through the same checks every stored row passes.
///
/// Invariant: the visible version comes first, then the kept live versions in the order of their
/// encoded vectors, so two devices holding the same versions list them alike; a row or kept
/// version that fails `StoredRowCheck` is left out and returned as damaged, for the caller to
/// quarantine (it writes nothing itself).
enum KeyVersions {
    /// The live versions of `key` and the damaged entries met; empty for no live row.
    static func live(_ key: [UInt8], driver: NamespaceDriver,
                     books: Bookkeeping) throws(SyncKernelError) -> (versions: [ConflictVersion], damaged: [DamagedRow]) {
        var versions: [ConflictVersion] = []
        var damaged: [DamagedRow] = []
        if let stored = try books.record(driver.name, key) {
            switch StoredRowCheck.visible(key, stored, driver: driver) {
            case .usable(let usable):
                if !usable.row.isDeviceDerived {
                    versions.append(ConflictVersion(key: key, row: stored.row, leaf: usable.row.leaf.hash,
                                                    vector: usable.version?.contentVector ?? VersionVector(),
                                                    writer: usable.version?.writer, isVisible: true))
                }
            case .damaged(let reason):
                damaged.append(DamagedRow(namespace: driver.name, key: key, row: stored.row, reason: reason))
            }
        }
        let (kept, found) = StoredRowCheck.kept(key, entries: try books.versionEntries(driver.name, key), driver: driver)
        damaged += found
        for version in kept.sorted(by: { $0.vector.encoded().lexicographicallyPrecedes($1.vector.encoded()) }) {
            guard let row = version.row else { continue }
            versions.append(ConflictVersion(key: key, row: row, leaf: try driver.inspect(row).leaf.hash, vector: version.vector,
                                            writer: version.writer, isVisible: false))
        }
        return (versions, damaged)
    }

    /// `versions` decoded as rows of `N`.
    static func decoded<N: SyncNamespace>(_ versions: [ConflictVersion], as namespace: N.Type) throws(SyncKernelError) -> [KeyVersion<N.Row>] {
        var out: [KeyVersion<N.Row>] = []
        for version in versions {
            out.append(KeyVersion(key: version.key, row: try N.decodeRow(bytes: version.row), vector: version.vector,
                                  writer: version.writer, isVisible: version.isVisible))
        }
        return out
    }
}
