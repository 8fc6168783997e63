extension CBORValue {
    /// Writes this value canonically; for a value from `CBORReader` this reproduces its input bytes.
    public func encode(into writer: inout CanonicalWriter) {
        switch self {
        case .unsigned(let value):
            writer.write(value)
        case .negative(let value):
            var head = CanonicalWriter()
            head.write(value)
            var bytes = head.bytes
            bytes[0] |= 0x20
            writer.write(encodedItem: bytes)
        case .bytes(let value):
            writer.write(bytes: value)
        case .text(let value):
            writer.write(value)
        case .array(let items):
            writer.writeArray(items) { writer, item in item.encode(into: &writer) }
        case .map(let entries):
            writer.writeMap { map in
                for entry in entries {
                    map.entry(encodedKey: entry.key.encoded()) { entry.value.encode(into: &$0) }
                }
            }
        case .tagged(let tag, let inner):
            var head = CanonicalWriter()
            head.write(tag)
            var bytes = head.bytes
            bytes[0] |= 0xc0
            writer.write(encodedItem: bytes)
            inner.encode(into: &writer)
        case .bool(let value):
            writer.write(value)
        case .null:
            writer.writeNull()
        }
    }

    /// The canonical encoding as bytes.
    public func encoded() -> [UInt8] {
        var writer = CanonicalWriter()
        encode(into: &writer)
        return writer.bytes
    }
}
