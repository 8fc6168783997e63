import SQLiteStore

/// The change marks a replica keeps of each peer (`ChangeMarks`), kept in the store (table
/// `sk_peer_mark`, made at open: `KernelStore.changeMarkSchema`) so the first sketch after a
/// restart is sized as well as any other.
///
/// Invariants: the marks of one peer are replaced whole in one transaction; a mark is a claim
/// about this store's own counters, so a store restored from a copy brings back the marks that
/// were true of it then, and a store rolled back below a mark makes that mark unknown
/// (`ChangeMarks.expectedItems` checks the counters).
extension KernelStore {
    /// The marks this store keeps of `peer` (none when it keeps none).
    package func changeMarks(with peer: DeviceID) throws(SyncKernelError) -> ChangeMarks {
        let statement = try db.statement("SELECT ns, mine, theirs FROM sk_peer_mark WHERE peer = ?").bind(1, peer.publicKey)
        var marks: [String: ChangeMarks.Mark] = [:]
        while try statement.step() {
            marks[statement.text(0)] = ChangeMarks.Mark(mine: UInt64(bitPattern: statement.int64(1)),
                                                        theirs: UInt64(bitPattern: statement.int64(2)))
        }
        return ChangeMarks(marks: marks)
    }

    /// Replaces the marks kept of `peer` with `marks`.
    package func storeChangeMarks(_ marks: ChangeMarks, with peer: DeviceID) throws(SyncKernelError) {
        try db.transaction { () throws(SyncKernelError) in
            try db.statement("DELETE FROM sk_peer_mark WHERE peer = ?").bind(1, peer.publicKey).run()
            for (namespace, mark) in marks.marks {
                try db.statement("INSERT INTO sk_peer_mark(peer, ns, mine, theirs) VALUES (?, ?, ?, ?)")
                    .bind(1, peer.publicKey).bind(2, namespace)
                    .bind(3, Int64(bitPattern: mark.mine)).bind(4, Int64(bitPattern: mark.theirs)).run()
            }
        }
    }
}
