/// One page of a namespace's snapshot: the rows and delete versions of consecutive keys, in key
/// order, as a `reconcile_resp` would ship them, and where the next page starts.
///
/// Invariants: every key's share (its visible row with its vectors and kept concurrent versions,
/// and all its delete versions) is in one page, never split across two, so an import that
/// decides per key sees all of it at once; the page stays within the byte and decoding bounds it
/// was asked for (`ReconcileResponse.split`'s accounting), except that one key whose share alone
/// exceeds them travels alone; device-derived rows are never in it (they are never shipped).
package struct SnapshotPage: Sendable, Hashable {
    /// The rows and delete versions of the page's keys.
    package let response: ReconcileResponse
    /// The last key the page covered (also a key whose share was left out as damaged or
    /// device-derived); the next page starts after it. Nil when the page covered no key.
    package let lastKey: [UInt8]?
    /// Whether the namespace has no key after this page.
    package let isLast: Bool
    /// Keys covered but left out: device-derived rows, and rows that failed `StoredRowCheck`
    /// (quarantined).
    package let keysLeftOut: Int
}
