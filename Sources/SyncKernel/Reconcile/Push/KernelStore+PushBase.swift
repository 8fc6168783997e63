import SQLiteStore

/// The keys a replica had written since it and each sibling last held equal roots, kept across a
/// clean stop (tables `sk_push_known` and `sk_push_key`, made at open:
/// `KernelStore.pushBaseSchema`), so a restarted device pushes what the sibling lacks instead of
/// sketching for it.
///
/// Invariants: what is kept is taken once (`takePushBases` reads and deletes it in one
/// transaction), so a run that ends in a crash leaves nothing behind that the run before it
/// kept; a namespace is known only when its row in `sk_push_known` is there, and then its keys
/// are exactly its rows in `sk_push_key` (none: nothing written since). Nothing kept is trusted
/// for correctness: a push carries the pusher's root and the sibling's answer settles whether the
/// keys were all of it.
extension KernelStore {
    /// The tables of the kept push bases (read and written by `takePushBases` and `keepPushBases`).
    static let pushBaseSchema = """
        CREATE TABLE IF NOT EXISTS sk_push_known(peer BLOB NOT NULL, ns TEXT NOT NULL, PRIMARY KEY(peer, ns)) WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS sk_push_key(
            peer BLOB NOT NULL, ns TEXT NOT NULL, key BLOB NOT NULL, PRIMARY KEY(peer, ns, key)) WITHOUT ROWID;
        """

    /// Replaces what is kept with `bases`: per sibling, per namespace known, the keys written
    /// since the two last held equal roots.
    package func keepPushBases(_ bases: [DeviceID: [String: Set<[UInt8]>]]) throws(SyncKernelError) {
        try db.transaction { () throws(SyncKernelError) in
            try db.execute("DELETE FROM sk_push_known; DELETE FROM sk_push_key;")
            for (peer, namespaces) in bases {
                for (namespace, keys) in namespaces {
                    try db.statement("INSERT INTO sk_push_known(peer, ns) VALUES (?, ?)").bind(1, peer.publicKey).bind(2, namespace).run()
                    for key in keys {
                        try db.statement("INSERT INTO sk_push_key(peer, ns, key) VALUES (?, ?, ?)")
                            .bind(1, peer.publicKey).bind(2, namespace).bind(3, key).run()
                    }
                }
            }
        }
    }

    /// What `keepPushBases` kept, deleted as it is read: per sibling, the known namespaces of
    /// this store and their keys; a namespace with more than `limit` keys is left out (unknown).
    package func takePushBases(limit: Int) throws(SyncKernelError) -> [DeviceID: [String: Set<[UInt8]>]] {
        let names = Set(namespaces.names)
        return try db.transaction { () throws(SyncKernelError) in
            var bases: [DeviceID: [String: Set<[UInt8]>]] = [:]
            let known = try db.statement("SELECT peer, ns FROM sk_push_known")
            while try known.step() {
                guard let peer = try? DeviceID(publicKey: known.blob(0)), names.contains(known.text(1)) else { continue }
                bases[peer, default: [:]][known.text(1)] = []
            }
            let keys = try db.statement("SELECT peer, ns, key FROM sk_push_key")
            while try keys.step() {
                guard let peer = try? DeviceID(publicKey: keys.blob(0)), let held = bases[peer]?[keys.text(1)]?.count else { continue }
                // Past the limit the namespace is unknown, and nothing more of it is read into memory.
                guard held < limit else {
                    bases[peer]?[keys.text(1)] = nil
                    continue
                }
                bases[peer]?[keys.text(1)]?.insert(keys.blob(2))
            }
            try db.execute("DELETE FROM sk_push_known; DELETE FROM sk_push_key;")
            return bases
        }
    }
}
