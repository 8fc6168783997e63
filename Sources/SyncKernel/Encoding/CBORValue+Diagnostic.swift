extension CBORValue {
    /// RFC 8949 diagnostic notation (`h'00ff'`, `"text"`, `[1, 2]`, `{"k": 1}`, `1(1700000000)`),
    /// for reports a person reads.
    public var diagnostic: String {
        switch self {
        case .unsigned(let value): return String(value)
        case .negative(let value): return value == UInt64.max ? "-18446744073709551616" : "-\(value + 1)"
        case .bytes(let value): return "h'\(Hex.encode(value))'"
        case .text(let value): return "\"\(value)\""
        case .array(let items): return "[" + items.map(\.diagnostic).joined(separator: ", ") + "]"
        case .map(let entries): return "{" + entries.map { "\($0.key.diagnostic): \($0.value.diagnostic)" }.joined(separator: ", ") + "}"
        case .tagged(let tag, let inner): return "\(tag)(\(inner.diagnostic))"
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }
}
