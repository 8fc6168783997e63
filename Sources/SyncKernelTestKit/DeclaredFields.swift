import Foundation
import SyncKernel

/// The fields the kit mutates, read off the namespace's declaration.
///
/// Invariants: every hashed field other than the key, and every excluded field other than a
/// device-derived marker, appears once, paired with its declaration: the subject's mutation when
/// it gives one, else one the kit generates from the field's codec shape (none for a custom
/// codec, which the declarations check reports). A generated mutation is a legal local edit
/// under the field's merge: a lattice field only grows (the new value is joined with the held
/// one), a register is set under the next edit counter, anything else is replaced.
struct DeclaredFields<Subject: NamespaceConformance> {
    typealias Row = Subject.Namespace.Row

    /// A field and how the kit changes it.
    struct Entry {
        let spec: FieldSpec<Row>
        let field: SchemaField<Row>
    }

    let hashedEntries: [Entry]
    let excludedEntries: [Entry]
    /// Fields the kit must mutate but cannot generate values for.
    let ungenerable: [String]
    /// Subject mutations that name no declared field.
    let strays: [String]

    var hashed: [FieldSpec<Row>] { hashedEntries.map(\.spec) }
    var excluded: [FieldSpec<Row>] { excludedEntries.map(\.spec) }

    init() {
        let schema = Subject.Namespace.schema
        let overrides = Dictionary(Subject.fieldMutations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let keyPath = schema.keyPath
        var hashed: [Entry] = []
        var excluded: [Entry] = []
        var ungenerable: [String] = []
        for field in schema.fields {
            let isKey = keyPath != nil && field.path.map { $0 == keyPath } == true
            if isKey || field.exclusion == .deviceDerived { continue }
            guard let spec = overrides[field.name] ?? DeclaredFields.generated(field) else {
                ungenerable.append(field.name)
                continue
            }
            if field.exclusion == nil { hashed.append(Entry(spec: spec, field: field)) } else { excluded.append(Entry(spec: spec, field: field)) }
        }
        let declared = Set(schema.fields.map(\.name))
        hashedEntries = hashed
        excludedEntries = excluded
        self.ungenerable = ungenerable
        strays = Subject.fieldMutations.map(\.name).filter { !declared.contains($0) }
    }

    /// The field's value as its row item's bytes, with the forms its codec declares equal made one.
    static func item(_ field: SchemaField<Row>, _ row: Row) -> [UInt8]? { FieldEdits.item(field, row)?.encoded() }

    /// A mutation that writes a freshly generated value of the field's shape, as a legal edit.
    private static func generated(_ field: SchemaField<Row>) -> FieldSpec<Row>? {
        guard ValueShapes.canGenerate(field.shape) else { return nil }
        return FieldSpec(name: field.name, read: { AnyHashable(field.value($0)) }, mutate: { row, generator in
            for _ in 0..<8 {
                guard let changed = FieldEdits.edit(field, row, &generator),
                      Subject.Namespace.key(of: changed) == Subject.Namespace.key(of: row),
                      (try? Subject.Namespace.decodeRow(bytes: Subject.Namespace.rowEncoding(of: changed))) != nil else { continue }
                return changed
            }
            return row
        }, addSubSecondNoise: { row in field.perturb(row) ?? row })
    }
}

/// Reading and legally editing one declared field, whatever the row type.
enum FieldEdits {
    /// The field's value as its row item, with the forms its codec declares equal made one.
    /// Compare items by their encoded bytes: `CBORValue ==` compares text by canonical equivalence.
    static func item<Row>(_ field: SchemaField<Row>, _ row: Row) -> CBORValue? {
        guard let bytes = field.value(row), let item = try? CBORReader.decode(bytes) else { return nil }
        return ValueShapes.normalized(item, field.shape)
    }

    /// `row` with a generated value in the field, as a legal local edit under its merge: a
    /// lattice value joined with the held one, a register set under the next counter.
    static func edit<Row>(_ field: SchemaField<Row>, _ row: Row, _ generator: inout FieldGenerator) -> Row? {
        var item = ValueShapes.generate(field.shape, &generator)
        if case .register = field.shape, let held = FieldEdits.item(field, row), case .array(let parts) = held,
           let counter = try? parts.first?.uint(), case .array(let fresh) = item, fresh.count == 2 {
            item = .array([.unsigned(counter == UInt64.max ? counter : counter + 1), fresh[1]])
        }
        guard let replaced = try? field.replacing(row, item) else { return nil }
        guard field.mergeKind == .lattice else { return replaced }
        return field.merging(row, replaced) ?? replaced
    }
}
