import Foundation
import SyncKernel

/// The storm-conformance suite: the checks a namespace runs before it ships, over its declared
/// fields.
///
/// What a pass means, exactly: for the rows, edits, Unicode and edge values, clock skews and
/// delivery schedules the seed generates, (1) excluded fields and a receiving device's rewrites
/// never move a leaf; (2) every row encodes one way, reads back unchanged and ignores sub-second
/// noise in any date it holds; (3) distinct values of a hashed field, and distinct rows, give
/// distinct leaves; (4) every hashed field converges between two replicas; (5) every field
/// merge and the row merge are commutative, associative and idempotent; (6) a local edit survives
/// the device's own merge and a declared retraction shows at once; (7) offloading keeps the leaf
/// and restoring brings the content back; (8) local passes are idempotent, agree across devices
/// and resurrect no deleted synced row; (9) a lossy, duplicating, reordering fleet with one clock
/// hours ahead and one running backwards converges without the storm guard tripping, every row
/// bounded in size, and ends in the state the rule allows (no write a causally later write or
/// delete did not replace is lost, no seen delete or retraction is undone). It is a search for
/// counterexamples, not a proof: more seeds search further (`make conformance-soak`).
///
/// Run `try ConformanceSuite(MySubject.self, seed: s).run()` in a test, or
/// `try ConformanceSuite.run(MySubject.self)` to take the seeds from the environment. A run makes
/// every check and throws one `ConformanceReport` listing every failure, each naming the
/// namespace, the check, the field, the seed and the inputs; running the suite again with that
/// seed replays it exactly. Each check is also public on its own (throwing its first failure).
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
    /// The fields the kit mutates, read once from the declaration and the subject's mutations.
    let declared = DeclaredFields<Subject>()

    /// A suite for `subject` with the default effort (well under a second of CPU per namespace
    /// in a debug build).
    public init(_ subject: Subject.Type, seed: UInt64 = 1, trials: Int = 6, fleetSizes: ClosedRange<Int> = 3...5,
                fleetSteps: Int = 60) {
        self.seed = seed
        self.trials = trials
        self.fleetSizes = fleetSizes
        self.fleetSteps = fleetSteps
    }

    /// Runs every check; throws a `ConformanceReport` with every failure, in the order to fix them.
    public func run() throws {
        let checks: [(ConformanceFailure.Check, () throws -> Void)] = [
            (.declarations, checkDeclarations), (.excludedFieldExcluded, checkExcludedFields),
            (.receiveRewriteExcluded, checkReceiveRewrite), (.canonicalEncoding, checkCanonicalEncoding),
            (.leafInjective, checkLeafInjective), (.hashedFieldMerges, checkHashedFieldsMerge),
            (.mergeLaws, checkMergeLaws), (.localEdits, checkLocalEdits), (.residency, checkResidency),
            (.localPassIdempotent, checkLocalPasses), (.fleetConvergence, checkFleetConvergence),
        ]
        var failures: [ConformanceFailure] = []
        for (check, body) in checks {
            do {
                try body()
            } catch let failure as ConformanceFailure {
                failures.append(failure)
            } catch {
                failures.append(self.failure(check, "the check could not run: \(error)"))
            }
            if check == .declarations, !failures.isEmpty { break }
        }
        guard failures.isEmpty else { throw ConformanceReport(namespace: Namespace.name, seed: seed, failures: failures) }
    }

    /// The seeds to run: `SYNCKERNEL_CONFORMANCE_SEED=S` replays the one seed a report printed;
    /// otherwise `SYNCKERNEL_CONFORMANCE_SEEDS=N` (or `count`) seeds from `base`.
    public static func seeds(count: Int = 1, base: UInt64 = 20_261_129,
                             environment: [String: String] = ProcessInfo.processInfo.environment) -> [UInt64] {
        if let only = environment["SYNCKERNEL_CONFORMANCE_SEED"].flatMap(UInt64.init) { return [only] }
        let total = environment["SYNCKERNEL_CONFORMANCE_SEEDS"].flatMap(Int.init) ?? count
        return (0..<UInt64(max(total, 1))).map { base &+ $0 }
    }

    /// Runs the suite for every seed `seeds(count:)` gives; throws the first seed's report.
    public static func run(_ subject: Subject.Type, count: Int = 1) throws {
        for seed in seeds(count: count) {
            try ConformanceSuite(subject, seed: seed).run()
        }
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

    var isJoin: Bool {
        if case .join = rule { return true } else { return false }
    }

    var isCausal: Bool { Namespace.mergeRule.isCausal }



    /// The row as a local edit at `clock` leaves it: the subject's stamping, or by default a
    /// causal change stamp set to `clock` and a single writer's stamp moved past its old value
    /// and `clock` (the one author never goes back).
    func touched(_ row: Row, at clock: Date) -> Row {
        if let stamped = Subject.touched(row, at: clock) { return stamped }
        switch rule {
        case .causal(_, _, let setStamp): return setStamp(row, clock)
        case .singleWriterLWW(let stamp, _, let setStamp):
            let old = stamp(row)
            return setStamp(row, max(old == Int64.max ? old : old + 1, CanonicalWriter.wholeSeconds(clock)))
        case .join, .insertIfAbsent: return row
        }
    }

    /// `row` with one to two random hashed fields changed (a single writer's stamp is left to
    /// `touched`, which moves it forward from the held one).
    func edited(_ row: Row, _ generator: inout FieldGenerator) -> Row {
        var changed = row
        let fields = declared.hashed
        guard !fields.isEmpty else { return row }
        for _ in 0..<generator.int(1...2) {
            changed = fields[generator.int(0...(fields.count - 1))].mutate(changed, &generator)
        }
        if case .singleWriterLWW(let stamp, _, let setStamp) = rule { changed = setStamp(changed, stamp(row)) }
        return changed
    }

    /// What to change, said for the rule this namespace declares.
    var convergenceAdvice: String {
        switch rule {
        case .causal:
            return "the causal merge adopts whole rows, so a field that still differs is rewritten per device (exclude it) or an adopt/tie-break hook is wrong"
        case .join:
            return "give the field a merge that converges it (or, or max, sortedUnion, a Register, a custom lattice join), or exclude it if it is per device"
        case .singleWriterLWW:
            return "the single writer's stamp must order every version of the field; exclude a field another device writes"
        case .insertIfAbsent:
            return "insert-if-absent rows are immutable: a field that differs between copies must be excluded"
        }
    }
}
