/// Why a stored row was found unusable: a stable machine-readable name, stored beside the
/// quarantined row.
///
/// Invariants: every reason the kernel writes is one of the static members; the raw values never
/// change or pass to another reason. A struct rather than an enum, so a store written by a later
/// build (with a reason this build does not know) still reads, and a release can add a reason
/// without breaking a host's exhaustive `switch`.
public struct QuarantineReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The stored name, for example "undecodable".
    public let rawValue: String

    /// A reason by its stored name.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The stored name.
    public var description: String { rawValue }

    /// The row's bytes do not decode under the namespace's declaration (or, for a row in an
    /// earlier format, are not CBOR at all).
    public static let undecodable = QuarantineReason(rawValue: "undecodable")
    /// The row decodes, but to another key than the one it is stored under.
    public static let wrongKey = QuarantineReason(rawValue: "wrongKey")
    /// The row decodes, but not to the leaf stored beside it (its content changed after it was
    /// hashed, or a synced row now reads as device-derived or back).
    public static let leafMismatch = QuarantineReason(rawValue: "leafMismatch")
    /// The row's RowVersion, or a kept version's vector, does not decode.
    public static let unreadableVersion = QuarantineReason(rawValue: "unreadableVersion")
}
