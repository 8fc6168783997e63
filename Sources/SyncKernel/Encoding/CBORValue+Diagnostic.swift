extension CBORValue {
    /// RFC 8949 diagnostic notation (`h'00ff'`, `"text"`, `[1, 2]`, `{"k": 1}`, `1(1700000000)`),
    /// for reports a person reads.
    ///
    /// Text is written with JSON's escapes (RFC 8949, section 8): `"` and `\` escaped, and every
    /// control character (C0, DEL, C1) as `\uXXXX`, so a string from a peer or a damaged store
    /// can neither end the quoted text early nor send a terminal control sequence.
    public var diagnostic: String {
        switch self {
        case .unsigned(let value): return String(value)
        case .negative(let value): return value == UInt64.max ? "-18446744073709551616" : "-\(value + 1)"
        case .bytes(let value): return "h'\(Hex.encode(value))'"
        case .text(let value): return "\"\(CBORValue.escaped(value))\""
        case .array(let items): return "[" + items.map(\.diagnostic).joined(separator: ", ") + "]"
        case .map(let entries): return "{" + entries.map { "\($0.key.diagnostic): \($0.value.diagnostic)" }.joined(separator: ", ") + "}"
        case .tagged(let tag, let inner): return "\(tag)(\(inner.diagnostic))"
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }

    /// `text` with `"` and `\` escaped and every control character written as `\uXXXX`.
    private static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x22: out += "\\\""
            case 0x5c: out += "\\\\"
            case 0..<0x20, 0x7f...0x9f:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
