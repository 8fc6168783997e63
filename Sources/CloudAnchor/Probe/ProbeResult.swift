import Foundation

/// A backup a probe found: the marker, the ref that pins it, and the files next to it.
///
/// Invariant: `files` holds every listed file except the marker, sorted by path bytes, and
/// `source.markerFingerprint` is the SHA-256 of `marker`.
public struct FoundBackup: Sendable, Hashable {
    /// The marker's bytes.
    public var marker: Data
    /// The ref pinning this backup.
    public var source: SourceRef
    /// The backed-up files.
    public var files: [RemoteFile]

    /// Creates a found backup.
    public init(marker: Data, source: SourceRef, files: [RemoteFile]) {
        self.marker = marker
        self.source = source
        self.files = files
    }
}

/// What `SyncEngine.probe()` found in the cloud.
///
/// Invariant: cloud failures are reported as `.failed`, never thrown.
public enum ProbeResult: Sendable, Hashable {
    /// The availability gate said no (`.noAccount` or `.needsConsent`).
    case unavailable(UnavailableReason)
    /// Listing or reading failed.
    case failed(CloudError)
    /// The cloud holds no files.
    case none
    /// Files exist but no marker, or the marker cannot be downloaded yet.
    case notReady
    /// A complete backup.
    case found(FoundBackup)
}
