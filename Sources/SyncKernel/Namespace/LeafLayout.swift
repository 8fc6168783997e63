/// How a row's hashed fields are laid out in its leaf encoding.
public enum LeafLayout: String, Sendable, Hashable {
    /// The hashed fields in declaration order, back to back (a CBOR sequence); a top-level
    /// optional carries a presence marker. The layout to use for a new namespace.
    case sequence
    /// The leaf is the row encoding itself (a positional array of every field). Allowed only when
    /// no field is excluded; kept for namespaces whose leaves were defined that way.
    case wholeRow
}
