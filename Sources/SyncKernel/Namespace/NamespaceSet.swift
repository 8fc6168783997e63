/// The namespaces one device syncs, validated and in their fixed (name) order.
///
/// Invariants: names are unique ignoring case (SQLite table names are case-insensitive) and
/// valid table-name suffixes; every declaration passes the checks `SyncNamespace` lists (a
/// namespace that fails one is refused with `invalidDeclaration` naming the namespace and the
/// field); exactly the `.causal` namespaces are causally tracked, since tracking is read off the
/// rule; the schema fingerprint covers every namespace's declaration. The host builds one and
/// passes it in: there is no global registry.
public struct NamespaceSet: Sendable {
    let drivers: [NamespaceDriver]
    /// The wire version of this set.
    public let schema: SchemaFingerprint

    /// Validates and orders `namespaces`.
    public init(_ namespaces: [any SyncNamespace.Type]) throws(SyncKernelError) {
        var drivers: [NamespaceDriver] = []
        for namespace in namespaces {
            drivers.append(try NamespaceSet.validated(namespace))
        }
        drivers.sort { $0.name < $1.name }
        var seen: Set<String> = []
        for driver in drivers where !seen.insert(driver.name.lowercased()).inserted {
            throw SyncKernelError(.duplicateNamespace, driver.name)
        }
        self.drivers = drivers
        schema = SchemaFingerprint(declarations: drivers.map(\.declaration))
    }

    /// Namespace names in the fixed order digests use.
    public var names: [String] { drivers.map(\.name) }

    /// The names of causally tracked namespaces (RowClock's causalEntities), read off their rules.
    public var causalEntities: [String] { drivers.filter(\.isCausal).map(\.name) }

    /// The excluded fields each namespace declares, by name.
    public var excludedFields: [String: [ExcludedField]] {
        Dictionary(uniqueKeysWithValues: drivers.map { ($0.name, $0.excludedFields) })
    }

    func driver(named name: String) throws(SyncKernelError) -> NamespaceDriver {
        guard let driver = drivers.first(where: { $0.name == name }) else {
            throw SyncKernelError(.unknownNamespace)
        }
        return driver
    }

    private static func validated<N: SyncNamespace>(_ namespace: N.Type) throws(SyncKernelError) -> NamespaceDriver {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_".utf8)
        guard !N.name.isEmpty, N.name.utf8.count <= 48, N.name.utf8.allSatisfy(allowed.contains) else {
            throw SyncKernelError(.invalidNamespaceName, N.name)
        }
        let driver = NamespaceDriver(N.self)
        if let problem = driver.problems.first { throw SyncKernelError(.invalidDeclaration, problem) }
        return driver
    }
}
