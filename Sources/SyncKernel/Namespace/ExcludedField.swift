/// A row field a namespace deliberately keeps out of its leaf, with the reason: the exclusion
/// list `SyncNamespace.excludedFields` derives from the fields declared `.excluded`.
///
/// Invariant: `name` is a stored property of the row (the schema checks it); a field may be
/// hashed only if the merge converges it, and every field that is not, or that describes this
/// device rather than the account, is excluded instead.
public struct ExcludedField: Sendable, Hashable {
    /// Why a field stays out of the leaf.
    public enum Category: String, Sendable, Hashable {
        /// Differs per device by design (for example when this device first saw a row).
        case perDevice
        /// Says where bytes live rather than what they are (offload pointers and holders).
        case residency
        /// A local row id where a stable cross-device key exists.
        case localIdentifier
        /// The marker that a row is re-derived on every device from a local source of truth
        /// (`SyncNamespace.isDeviceDerived` reads it); such rows are never synced.
        case deviceDerived
    }

    /// The field's name as the row type spells it.
    public let name: String
    /// The category of the exclusion.
    public let category: Category
    /// A sentence saying why hashing it would diverge the digest.
    public let reason: String

    /// Describes an excluded field.
    package init(_ name: String, _ category: Category, reason: String) {
        self.name = name
        self.category = category
        self.reason = reason
    }
}
