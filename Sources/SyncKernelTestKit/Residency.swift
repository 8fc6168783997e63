import Foundation
import SyncKernel

/// How a namespace moves a row's content off this device and back, as its mutators do it.
///
/// Invariant required of a correct namespace: offloading leaves the row's leaf and version
/// vector unchanged and marks nothing dirty; restoring brings back exactly the content that was
/// offloaded (the same leaf and the same hashed fields).
public struct Residency<Namespace: SyncNamespace>: Sendable {
    /// Offloads the row with `key` (for example to `holder`); returns false when the row cannot
    /// be offloaded (already offloaded, nothing to offload).
    public let offload: @Sendable (NamespaceTransaction<Namespace>, _ key: [UInt8], _ holder: [UInt8]) throws -> Bool
    /// Brings the content of the offloaded row with `key` back from `original`, the row as it was
    /// before offloading.
    public let restore: @Sendable (NamespaceTransaction<Namespace>, _ key: [UInt8], _ original: Namespace.Row) throws -> Void

    /// Declares offloading through the namespace's mutators.
    public init(offload: @escaping @Sendable (NamespaceTransaction<Namespace>, _ key: [UInt8], _ holder: [UInt8]) throws -> Bool,
                restore: @escaping @Sendable (NamespaceTransaction<Namespace>, _ key: [UInt8], _ original: Namespace.Row) throws -> Void) {
        self.offload = offload
        self.restore = restore
    }
}
