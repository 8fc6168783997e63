/// Checks a declaration against the type it describes, so a field list cannot drift from the row.
///
/// Invariant: reports (never traps) every stored property of `blank` that no field declares,
/// every declared name that is no stored property, and every name declared twice.
package enum DeclarationAudit {
    /// The mistakes in declaring `fields` over values shaped like `blank`.
    package static func problems<Value: Sendable>(blank: Value, fields: [Field<Value>], what: String) -> [String] {
        var problems = fields.flatMap(\.problems)
        let declared = fields.flatMap(\.properties)
        var seen: Set<String> = []
        for name in declared where !seen.insert(name).inserted {
            problems.append("\(what): field \(name) is declared twice")
        }
        let stored = Mirror(reflecting: blank).children.compactMap(\.label)
        for property in stored where !seen.contains(property) {
            problems.append("\(what): stored property \(property) is not declared (declare it hashed or excluded)")
        }
        let storedSet = Set(stored)
        for name in declared where !storedSet.contains(name) {
            problems.append("\(what): field \(name) names no stored property")
        }
        return problems
    }
}
