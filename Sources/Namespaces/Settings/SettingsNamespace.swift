import SyncKernel

/// Settings: a small flat dictionary, reconciled whole rather than by range fingerprints.
///
/// Rule: `.causal` with per-key version vectors and tombstoned keys, because any device may
/// change or remove any setting. Granularity: `.wholeNamespace`: the request carries no
/// fingerprints and the response is the whole synced dictionary. Two concurrent live values go to
/// the lexicographically larger string (UTF-8 bytes), so an encoding can make "larger" mean
/// something: read marks are fixed-width second counts (`ReadState`), so larger is later.
public enum SettingsNamespace: SyncNamespace {
    public typealias Row = Setting

    public static let name = "settings"
    public static let leafSchemaVersion = 1
    public static let granularity = ReconcileGranularity.wholeNamespace
    public static let excludedFields = [
        ExcludedField("updatedAt", .perDevice,
                      reason: "each device stamps its own clock; two devices that chose the same value at different times must agree, and the tie-break compares values only"),
    ]
    public static let mergeRule: MergeRule<Setting> = .causal
    public static let causalMembership: CausalMembership<Setting> = .tracked { $0.updatedAt }

    public static func key(of row: Setting) -> [UInt8] { Array(row.key.utf8) }

    public static func encodeLeaf(_ row: Setting, into writer: inout CanonicalWriter) {
        writer.write(row.key)
        writer.write(row.value)
    }

    public static func encodeRow(_ row: Setting, into writer: inout CanonicalWriter) {
        writer.writeArrayHeader(count: 3)
        writer.write(row.key)
        writer.write(row.value)
        writer.write(row.updatedAt)
    }

    public static func decodeRow(_ value: CBORValue) throws(SyncKernelError) -> Setting {
        let fields = try value.fields(3, of: "a setting")
        return Setting(key: try fields[0].text(), value: try fields[1].text(), updatedAt: try fields[2].int64())
    }

    /// The lexicographically larger value (UTF-8 bytewise) wins a concurrent tie.
    public static func incomingWinsTie(_ incoming: Setting, over local: Setting) -> Bool {
        Array(local.value.utf8).lexicographicallyPrecedes(Array(incoming.value.utf8))
    }
}
