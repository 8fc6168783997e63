/// Whether the cloud can be used on this device right now.
///
/// Invariant: only `.available` lets the engine touch the storage.
public enum CloudAvailability: Sendable, Hashable {
    /// No cloud account is signed in.
    case noAccount
    /// An account exists but the user has not consented to its use.
    case needsConsent
    /// The cloud can be used.
    case available
}
