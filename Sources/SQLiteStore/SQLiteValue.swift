/// One value bound to a statement or read from a column, tagged with its SQLite storage class.
///
/// Invariant: each case holds exactly what SQLite stores for its class, so a value read back
/// from a column equals the one bound (an empty blob stays an empty `.blob`, never `.null`).
package enum SQLiteValue: Sendable, Hashable {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// A double-precision float.
    case real(Double)
    /// UTF-8 text.
    case text(String)
    /// Bytes, possibly none.
    case blob([UInt8])

    /// The text, or `nil` for any other value.
    package var text: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The integer, or `nil` for any other value.
    package var integer: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number as a `Double` (an integer converted), or `nil` for non-numbers.
    package var real: Double? {
        switch self {
        case .real(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The bytes, or `nil` for any other value.
    package var blob: [UInt8]? {
        if case .blob(let value) = self { return value }
        return nil
    }
}
