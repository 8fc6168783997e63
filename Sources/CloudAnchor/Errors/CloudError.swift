/// The one error type of CloudAnchor: every cloud or local failure a backend or the engine reports.
///
/// Invariant: each case has a stable `code` that never changes between releases, and the
/// description never carries user data (no paths, names, URLs or server messages), so it is
/// safe to log and to show.
public enum CloudError: Error, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The cloud has no room left (quota exceeded, disk full, HTTP 507).
    case storageFull
    /// Any other failure talking to the cloud: 5xx after retries, rate limit after retries, timeout.
    case transport
    /// Access was withdrawn: HTTP 401 after one retry, a 403 other than quota, permission denied.
    case authRevoked
    /// The cloud cannot be reached at all (connection refused, no route, drive not mounted).
    case offline
    /// A read or download asked for a path the cloud does not hold.
    case notFound
    /// The cloud service itself is not available on this device (container or service missing).
    case notAvailable
    /// The user has not accepted the consent the cloud needs.
    case needsConsent
    /// A local file or the state file could not be read or written.
    case localIO
    /// A path given to the engine or a backend is not a relative path of plain components.
    case invalidPath
    /// A downloaded file's size or content hash is not the one the backup recorded for it.
    case contentMismatch
    /// The backup's manifest fails its own check (truncated, emptied, garbage, or a wrong hash).
    case manifestDamaged
    /// A change checkpoint can no longer be used (expired token, missing or deleted zone).
    case changeTokenExpired

    /// A stable, machine-readable code for this error.
    public var code: String {
        switch self {
        case .storageFull: "storage_full"
        case .transport: "transport"
        case .authRevoked: "auth_revoked"
        case .offline: "offline"
        case .notFound: "not_found"
        case .notAvailable: "not_available"
        case .needsConsent: "needs_consent"
        case .localIO: "local_io"
        case .invalidPath: "invalid_path"
        case .contentMismatch: "content_mismatch"
        case .manifestDamaged: "manifest_damaged"
        case .changeTokenExpired: "change_token_expired"
        }
    }

    /// A fixed sentence naming the error and its code, with no user data.
    public var description: String {
        let text = switch self {
        case .storageFull: "the cloud storage is full"
        case .transport: "the cloud storage failed to complete the request"
        case .authRevoked: "access to the cloud storage was revoked"
        case .offline: "the cloud storage cannot be reached"
        case .notFound: "the requested file is not in the cloud storage"
        case .notAvailable: "the cloud storage is not available on this device"
        case .needsConsent: "the cloud storage needs the user's consent"
        case .localIO: "a local file or the state file could not be read or written"
        case .invalidPath: "a path is not a relative path of plain components"
        case .contentMismatch: "a file's content does not match the backup's record of it"
        case .manifestDamaged: "the backup's manifest is damaged"
        case .changeTokenExpired: "the change checkpoint can no longer be used"
        }
        return "\(text) [\(code)]"
    }
}
