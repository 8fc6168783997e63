/// The keys of a namespace an observed query reads (`SyncDevice.observe`): a commit that changed
/// none of them leaves the query's value as it was, so it is not run again.
///
/// Invariant: a region covers every key its query may read; a query that reads outside its
/// region (a key, a prefix, a range) misses the commits that change only what lies outside. `namespace`
/// covers every key.
public enum ObservedRegion: Sendable, Hashable {
    /// Every key of the namespace.
    case namespace
    /// One key.
    case key([UInt8])
    /// The keys that start with these bytes.
    case prefix([UInt8])
    /// The keys from `from` (included) to `below` (excluded; nil: to the last key), the range
    /// `NamespaceReader.rows(from:below:after:limit:)` reads. A range whose end is not above its
    /// start covers no key.
    case range(from: [UInt8], below: [UInt8]?)

    /// The keys covered, as the bounds of one key range: at or above `start` (nil: from the first
    /// key) and below `end` (nil: to the last).
    var bounds: (start: [UInt8]?, end: [UInt8]?) {
        switch self {
        case .namespace: (nil, nil)
        case .key(let key): (key, key + [0])
        case .prefix(let prefix): (prefix.isEmpty ? nil : prefix, KeyRange.prefixEnd(prefix))
        case .range(let start, let end): (start.isEmpty ? nil : start, end)
        }
    }
}
