import SyncKernel

/// Settings: a small flat dictionary, reconciled whole rather than by range fingerprints.
///
/// Rule: `.causal` with per-key version vectors and tombstoned keys, because any device may
/// change or remove any setting. Granularity: `.wholeNamespace`: the request carries no
/// fingerprints and the response is the whole synced dictionary. Two concurrent live values go to
/// the lexicographically larger string (UTF-8 bytes), so an encoding can make "larger" mean
/// something: read marks are fixed-width second counts (`ReadState`), so larger is later.
public enum SettingsNamespace: SyncNamespace {
    public static let name = "settings"
    public static let granularity = ReconcileGranularity.wholeNamespace

    public static let schema = RowSchema<Setting>(blank: Setting(key: "", value: "", updatedAt: 0), key: \.key, [
        .hashed("key", \.key, .text),
        .hashed("value", \.value, .text),
        .excluded("updatedAt", \.updatedAt, .int64, .perDevice,
                  reason: "each device stamps its own clock; two devices that chose the same value at different times must agree, and the tie-break compares values only"),
    ])

    public static let mergeRule = MergeRule<Setting>.causal(changeStamp: \.updatedAt)

    /// The lexicographically larger value (UTF-8 bytewise) wins a concurrent tie.
    public static func incomingWinsTie(_ incoming: Setting, over local: Setting) -> Bool {
        Array(local.value.utf8).lexicographicallyPrecedes(Array(incoming.value.utf8))
    }
}
