import Foundation
import SyncKernel

/// A local process that writes a namespace from a local source (an ingester, an importer).
///
/// Invariant required of a correct pass: running it twice in a row with nothing else happening
/// changes nothing the second time (no leaf moves), so it cannot re-mint ids.
public struct LocalPass<Namespace: SyncNamespace>: Sendable {
    /// A name for reports.
    public let name: String
    /// The pass; `clock` is the device's wall clock.
    public let run: @Sendable (NamespaceTransaction<Namespace>, _ clock: Date) throws -> Void

    /// Creates a pass.
    public init(_ name: String, run: @escaping @Sendable (NamespaceTransaction<Namespace>, _ clock: Date) throws -> Void) {
        self.name = name
        self.run = run
    }
}
