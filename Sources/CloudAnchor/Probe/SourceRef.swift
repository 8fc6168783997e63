/// Pins the backup a restore comes from: the identity, the marker's remote id and fingerprint.
///
/// Invariant: two refs `matches` when identity and fingerprint are equal; any rewrite of the
/// marker with other bytes therefore counts as a different source.
public struct SourceRef: Sendable, Hashable, Codable {
    /// The identity of the account holding the backup.
    public var identityKey: String
    /// The marker's remote id, when the storage has one.
    public var markerRemoteId: String?
    /// The SHA-256 of the marker's bytes.
    public var markerFingerprint: String

    /// Creates a ref.
    public init(identityKey: String, markerRemoteId: String?, markerFingerprint: String) {
        self.identityKey = identityKey
        self.markerRemoteId = markerRemoteId
        self.markerFingerprint = markerFingerprint
    }

    /// Whether `other` names the same backup: same identity and same marker fingerprint.
    public func matches(_ other: SourceRef) -> Bool {
        identityKey == other.identityKey && markerFingerprint == other.markerFingerprint
    }
}
