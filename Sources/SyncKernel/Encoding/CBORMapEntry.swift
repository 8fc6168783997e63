import Foundation

/// One key/value pair of a decoded CBOR map.
public struct CBORMapEntry: Sendable, Hashable {
    /// The key.
    public let key: CBORValue
    /// The value.
    public let value: CBORValue
}
