/// What a sibling has not seen yet of this device's own writes to one namespace, as CKSyncEngine
/// shows an app its pending changes.
///
/// Invariant: `keys` lists every key this device wrote since it and the sibling last held equal
/// roots (pushed and not acknowledged, or not pushed yet); `unknown` says this device cannot list
/// them (it has not seen the sibling in step since it started, or wrote more keys than a push
/// carries): the digest exchange finds them when the two meet.
public enum PendingChanges: Sendable, Hashable {
    /// These keys, none when the sibling is in step.
    case keys(Set<[UInt8]>)
    /// Not known key by key.
    case unknown
}
