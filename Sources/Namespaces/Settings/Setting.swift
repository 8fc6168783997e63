/// One entry of the synced settings dictionary.
///
/// Invariant: `key` is the stable cross-device key; `updatedAt` is this device's change stamp
/// (whole seconds), read by RowClock for inequality only and never hashed or compared.
public struct Setting: Sendable, Hashable {
    /// The setting's name.
    public var key: String
    /// The setting's value.
    public var value: String
    /// When this device last wrote the value, on its own clock.
    public var updatedAt: Int64

    /// Creates a setting.
    public init(key: String, value: String, updatedAt: Int64) {
        self.key = key
        self.value = value
        self.updatedAt = updatedAt
    }
}
