/// The keys of a `sync_delta` frame's map, under both spellings: the spec's names, which every
/// frame to a spec peer (and to a peer that has not announced `SyncFrame.compactCapability`)
/// uses, and the one-letter names of a compact frame.
///
/// Invariants: within each spelling the names are distinct, so a frame's keys map to at most one
/// field each; `type` has no compact name (a compact frame's `kind` is a `Kind` code, which
/// already says the payload is `sync_delta`); the two spellings never mix in one frame: a map
/// that holds `type` is read by the spec's names only (its one-letter keys are unknown keys,
/// skipped as before), one without it by the compact names only.
package enum FrameKey: Int, CaseIterable, Sendable {
    /// One field a frame may carry, named after the spec's key (`rawValue` indexes a reader's table).
    case type, account, schema, kind, caps, digest, probe, changes, ns, buckets, keys, devices, rows, tombstones,
         listings, want, final, root, symbols, nodes, wantPrefixes, more, answers, epoch, epochEcho

    /// The spec's name.
    package var name: StaticString {
        switch self {
        case .type: "type"
        case .account: "account"
        case .schema: "schema"
        case .kind: "kind"
        case .caps: "caps"
        case .digest: "digest"
        case .probe: "probe"
        case .changes: "changes"
        case .ns: "ns"
        case .buckets: "buckets"
        case .keys: "keys"
        case .devices: "devices"
        case .rows: "rows"
        case .tombstones: "tombstones"
        case .listings: "listings"
        case .want: "want"
        case .final: "final"
        case .root: "root"
        case .symbols: "symbols"
        case .nodes: "nodes"
        case .wantPrefixes: "want_prefixes"
        case .more: "more"
        case .answers: "answers"
        case .epoch: "epoch"
        case .epochEcho: "epoch_echo"
        }
    }

    /// The compact frame's name, nil for `type`, which a compact frame does not carry.
    package var compactName: StaticString? {
        switch self {
        case .type: nil
        case .account: "a"
        case .schema: "s"
        case .kind: "k"
        case .caps: "c"
        case .digest: "d"
        case .probe: "p"
        case .changes: "h"
        case .ns: "n"
        case .buckets: "b"
        case .keys: "y"
        case .devices: "v"
        case .rows: "r"
        case .tombstones: "x"
        case .listings: "l"
        case .want: "w"
        case .final: "f"
        case .root: "o"
        case .symbols: "m"
        case .nodes: "e"
        case .wantPrefixes: "q"
        case .more: "u"
        case .answers: "t"
        case .epoch: "g"
        case .epochEcho: "z"
        }
    }

    /// The name a frame written `compact` (or not) uses; `type` only ever in the spec's spelling.
    package func text(compact: Bool) -> String {
        let name = compact ? compactName ?? self.name : self.name
        return name.withUTF8Buffer { String(decoding: $0, as: UTF8.self) }
    }
}
