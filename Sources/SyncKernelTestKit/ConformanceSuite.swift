import Foundation
import SyncKernel

/// The storm-conformance suite: the checks a namespace runs before it ships, over its declared
/// fields (encodings, exclusions, field merges, merge laws, local passes and a lossy fleet).
///
/// A pass means no check found a counterexample among the rows and schedules its seed generates;
/// each check's documentation says exactly what it exercises. More seeds search further
/// (`make conformance-soak`).
///
/// Run `try ConformanceSuite(MySubject.self, seed: s).run()` in a test; a failure throws a
/// `ConformanceFailure` naming the namespace, the check, the field and the seed, and running the
/// suite again with that seed replays it exactly. Each check is also public on its own.
public struct ConformanceSuite<Subject: NamespaceConformance> {
    typealias Namespace = Subject.Namespace
    typealias Row = Namespace.Row
    typealias Harness = ConformanceHarness<Subject>

    /// The seed every random choice derives from.
    public let seed: UInt64
    /// Rows tried per field and per law.
    public var trials: Int
    /// Fleet sizes the convergence check draws from.
    public var fleetSizes: ClosedRange<Int>
    /// Local writes in the fleet schedule.
    public var fleetSteps: Int

    /// A suite for `subject` with the default effort (about a second per namespace in debug builds).
    public init(_ subject: Subject.Type, seed: UInt64 = 1, trials: Int = 6, fleetSizes: ClosedRange<Int> = 3...5,
                fleetSteps: Int = 60) {
        self.seed = seed
        self.trials = trials
        self.fleetSizes = fleetSizes
        self.fleetSteps = fleetSteps
    }

    /// Runs every check in order; throws the first failure.
    public func run() throws {
        try checkDeclarations()
        try checkCanonicalEncoding()
        try checkExcludedFields()
        try checkReceiveRewrite()
        try checkHashedFieldsMerge()
        try checkMergeLaws()
        try checkLocalPasses()
        try checkFleetConvergence()
    }

    func generator(_ salt: UInt64) -> FieldGenerator {
        FieldGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ salt)
    }

    func failure(_ check: ConformanceFailure.Check, field: String? = nil, _ detail: String,
                 leaves: [String] = []) -> ConformanceFailure {
        ConformanceFailure(namespace: Namespace.name, check: check, field: field, seed: seed, detail: detail, leaves: leaves)
    }

    var rule: MergeRule<Row>.Kind { Namespace.mergeRule.kind }

    var isInsertIfAbsent: Bool {
        if case .insertIfAbsent = rule { return true } else { return false }
    }

    var isCausal: Bool { Namespace.mergeRule.isCausal }

    /// The fields the kit mutates, from the namespace's declaration and the subject's mutations.
    var declared: DeclaredFields<Subject> { DeclaredFields() }

    /// The row as a local edit at `clock` leaves it: a causal namespace's change stamp set to
    /// `clock`; a single writer's stamp moved past both its old value and `clock` (the one author
    /// never goes back in time).
    func touched(_ row: Row, at clock: Date) -> Row {
        switch rule {
        case .causal(_, _, let setStamp): return setStamp(row, clock)
        case .singleWriterLWW(let stamp, _, let setStamp): return setStamp(row, max(stamp(row) + 1, CanonicalWriter.wholeSeconds(clock)))
        case .join, .insertIfAbsent: return row
        }
    }

    /// `row` with one to two random hashed fields changed.
    func edited(_ row: Row, _ generator: inout FieldGenerator) -> Row {
        var changed = row
        let fields = declared.hashed
        guard !fields.isEmpty else { return row }
        for _ in 0..<generator.int(1...2) {
            changed = fields[generator.int(0...(fields.count - 1))].mutate(changed, &generator)
        }
        return changed
    }
}
