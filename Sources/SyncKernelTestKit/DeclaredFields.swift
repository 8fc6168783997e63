import Foundation
import SyncKernel

/// The fields the kit mutates, read off the namespace's declaration.
///
/// Invariant: every hashed field other than the key, and every excluded field other than a
/// device-derived marker, appears once: the subject's mutation when it gives one, else a
/// mutation the kit generates from the field's codec shape (nil for a custom codec, which the
/// declarations check reports).
struct DeclaredFields<Subject: NamespaceConformance> {
    typealias Row = Subject.Namespace.Row

    let hashed: [FieldSpec<Row>]
    let excluded: [FieldSpec<Row>]
    /// Fields the kit must mutate but cannot generate values for.
    let ungenerable: [String]
    /// Subject mutations that name no declared field.
    let strays: [String]

    init() {
        let schema = Subject.Namespace.schema
        let overrides = Dictionary(Subject.fieldMutations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let keyPath = schema.keyPath
        var hashed: [FieldSpec<Row>] = []
        var excluded: [FieldSpec<Row>] = []
        var ungenerable: [String] = []
        for field in schema.fields {
            let isKey = keyPath != nil && field.path.map { $0 == keyPath } == true
            if isKey || field.exclusion == .deviceDerived { continue }
            let spec = overrides[field.name] ?? DeclaredFields.generated(field)
            guard let spec else {
                ungenerable.append(field.name)
                continue
            }
            if field.exclusion == nil { hashed.append(spec) } else { excluded.append(spec) }
        }
        let declared = Set(schema.fields.map(\.name))
        self.hashed = hashed
        self.excluded = excluded
        self.ungenerable = ungenerable
        strays = Subject.fieldMutations.map(\.name).filter { !declared.contains($0) }
    }

    /// A mutation that writes a freshly generated value of the field's shape, keeping the key.
    private static func generated(_ field: SchemaField<Row>) -> FieldSpec<Row>? {
        guard ValueShapes.canGenerate(field.shape) else { return nil }
        return FieldSpec(name: field.name, read: { AnyHashable(field.value($0)) }, mutate: { row, generator in
            for _ in 0..<8 {
                let item = ValueShapes.generate(field.shape, &generator)
                guard let changed = try? field.replacing(row, item),
                      Subject.Namespace.key(of: changed) == Subject.Namespace.key(of: row),
                      (try? Subject.Namespace.decodeRow(bytes: Subject.Namespace.rowEncoding(of: changed))) != nil else { continue }
                return changed
            }
            return row
        }, addSubSecondNoise: { row in field.perturbDate(row) ?? row })
    }
}
