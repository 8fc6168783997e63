/// A path compared, hashed and ordered by its UTF-8 bytes.
///
/// Invariant: two paths are equal only when their bytes are equal. Swift's `String` compares
/// and hashes by canonical equivalence, so an NFC and an NFD spelling of the same name would be
/// one dictionary key; the file system and the cloud keep them as two files, and so does this key.
struct ExactPath: Hashable, Comparable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The path.
    let string: String

    /// Wraps `string`.
    init(_ string: String) {
        self.string = string
    }

    /// Wraps a literal.
    init(stringLiteral value: String) {
        string = value
    }

    /// The path itself.
    var description: String {
        string
    }

    static func == (lhs: ExactPath, rhs: ExactPath) -> Bool {
        lhs.string.utf8.elementsEqual(rhs.string.utf8)
    }

    static func < (lhs: ExactPath, rhs: ExactPath) -> Bool {
        lhs.string.utf8.lexicographicallyPrecedes(rhs.string.utf8)
    }

    func hash(into hasher: inout Hasher) {
        for byte in string.utf8 { hasher.combine(byte) }
        hasher.combine(0xFF as UInt8)
    }
}

extension String {
    /// Whether `self` and `other` have the same UTF-8 bytes (not merely canonically equivalent).
    func bytesEqual(_ other: String) -> Bool {
        utf8.elementsEqual(other.utf8)
    }

    /// Whether `self` orders before `other` by UTF-8 bytes.
    func bytesPrecede(_ other: String) -> Bool {
        utf8.lexicographicallyPrecedes(other.utf8)
    }

    /// Whether `self` begins with the bytes of `prefix`.
    func bytesHavePrefix(_ prefix: String) -> Bool {
        utf8.starts(with: prefix.utf8)
    }
}
