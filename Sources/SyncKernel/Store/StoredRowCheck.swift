/// The checks a stored row passes before the store uses it.
///
/// Invariant: the checks are the same wherever a stored row is read (opening, reads, shipping,
/// merging, `checkIntegrity`), so a row one place would quarantine, every other would too (a
/// read checks less: see `read`; so does opening a store of an earlier build: see `decoded`);
/// they never write anything (quarantining is the caller's step).
enum StoredRowCheck {
    /// The visible row of `key`: it decodes, to `key`, to the leaf stored beside it (no leaf for
    /// a device-derived row), and its RowVersion decodes; usable, it gives the row inspected and
    /// its RowVersion.
    static func visible(_ key: [UInt8], _ stored: StoredRecord,
                        driver: NamespaceDriver) -> StoredVerdict<(row: InspectedRow, version: RowVersion?)> {
        let row: InspectedRow
        switch decoded(key, stored.row, driver: driver) {
        case .usable(let inspected): row = inspected
        case .damaged(let reason): return .damaged(reason)
        }
        guard row.isDeviceDerived ? stored.leaf == nil : stored.leaf == row.leaf.hash else { return .damaged(.leafMismatch) }
        do {
            return .usable((row, try stored.version()))
        } catch {
            return .damaged(.unreadableVersion)
        }
    }

    /// A stored row whose leaf may not be stored yet (opening a store of an earlier build): it
    /// decodes, to `key`.
    static func decoded(_ key: [UInt8], _ bytes: [UInt8], driver: NamespaceDriver) -> StoredVerdict<InspectedRow> {
        let row: InspectedRow
        do {
            row = try driver.inspect(bytes)
        } catch {
            return .damaged(.undecodable)
        }
        return row.key == key ? .usable(row) : .damaged(.wrongKey)
    }

    /// A kept version of `key` (a concurrent live version or a delete): its vector decodes, and
    /// a live version's row decodes to `key` as a synced row, to the leaf stored beside it when
    /// one is.
    static func kept(_ key: [UInt8], vector: [UInt8], row: [UInt8]?, writer: DeviceID? = nil, leaf: [UInt8]? = nil,
                     driver: NamespaceDriver) -> StoredVerdict<StoredVersion> {
        let decoded: VersionVector
        do {
            decoded = try Bookkeeping.decodeVector(vector)
        } catch {
            return .damaged(.unreadableVersion)
        }
        guard let row else { return .usable(StoredVersion(vector: decoded, row: nil)) }
        let inspected: InspectedRow
        do {
            inspected = try driver.inspect(row)
        } catch {
            return .damaged(.undecodable)
        }
        guard inspected.key == key, !inspected.isDeviceDerived else { return .damaged(.wrongKey) }
        guard leaf.map({ $0 == inspected.leaf.hash }) ?? true else { return .damaged(.leafMismatch) }
        return .usable(StoredVersion(vector: decoded, row: row, writer: writer))
    }

    /// A row a read returns: it decodes under `N` to `key` (the leaf is checked where rows are
    /// shipped and merged, and by `checkIntegrity`; a read pays for the decoding only).
    static func read<N: SyncNamespace>(_ key: [UInt8], _ bytes: [UInt8], as namespace: N.Type) -> StoredVerdict<N.Row> {
        let row: N.Row
        do {
            row = try N.decodeRow(bytes: bytes)
        } catch {
            return .damaged(.undecodable)
        }
        return N.key(of: row) == key ? .usable(row) : .damaged(.wrongKey)
    }

    /// The kept versions of `key` as stored, split into those that pass `kept` and the damaged
    /// ones (each named by its vector bytes).
    static func kept(_ key: [UInt8], entries: [VersionEntry],
                     driver: NamespaceDriver) -> (usable: [StoredVersion], damaged: [DamagedRow]) {
        var usable: [StoredVersion] = []
        var damaged: [DamagedRow] = []
        for entry in entries {
            switch kept(key, vector: entry.vector, row: entry.row, writer: entry.writer, leaf: entry.leaf, driver: driver) {
            case .usable(let version):
                usable.append(version)
            case .damaged(let reason):
                damaged.append(DamagedRow(namespace: driver.name, key: key, row: entry.row ?? [], vector: entry.vector, reason: reason))
            }
        }
        return (usable, damaged)
    }
}
