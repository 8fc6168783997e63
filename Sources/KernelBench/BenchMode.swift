import SyncKernel

/// How the two benchmark replicas answer each other's requests.
///
/// Invariant: both replicas of a run use the same mode; `spec` is the reconciling-by-digest spec
/// (whole mismatching buckets), `fast` is the kernel's current best (leaf listings, then by-key
/// requests) until the persisted structure lands.
public enum BenchMode: String, Sendable, Hashable, CaseIterable {
    /// `ResponsePolicy.shipRows`: every row of every mismatching bucket.
    case spec
    /// `ResponsePolicy.standard`: ranges of more than 8 leaves are listed, then fetched by key.
    case fast

    /// The store setting this mode runs under.
    public var responsePolicy: ResponsePolicy {
        switch self {
        case .spec: return .shipRows
        case .fast: return .standard
        }
    }
}
