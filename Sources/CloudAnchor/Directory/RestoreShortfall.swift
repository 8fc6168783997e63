/// What an incomplete directory restore tells its user about the entries it could not put in
/// place: every one of them, or past `listedLimit` their count and the first `listedLimit`, with
/// how many the backup lacks and how many it holds damaged.
///
/// Invariants: `problems` is every problem, as given (a restore gives them in path-byte order);
/// `listed` is its first `min(problems.count, listedLimit)`; `missing + damaged + other ==
/// problems.count`; `summary` states the counts, says when the list is cut, holds no path and
/// never reads as success.
public struct RestoreShortfall: Sendable, Hashable {
    /// The most problems a report names one by one.
    public static let listedLimit = 20

    /// Every problem.
    public let problems: [RestoreProblem]

    /// The shortfall of `problems`.
    public init(_ problems: [RestoreProblem]) {
        self.problems = problems
    }

    /// The problems a report names: all of them, or the first `listedLimit`.
    public var listed: ArraySlice<RestoreProblem> { problems.prefix(Self.listedLimit) }
    /// Files the backup does not hold.
    public var missing: Int { problems.count { $0.kind == .missing } }
    /// Files whose copy in the backup does not match the manifest.
    public var damaged: Int { problems.count { $0.kind == .damaged } }
    /// Entries not in place for another reason (this machine's or the connection's).
    public var other: Int { problems.count - missing - damaged }
    /// Whether some entry is missing or damaged in the backup (the next backup from the source
    /// uploads those again).
    public var isBackupsFault: Bool { missing + damaged > 0 }

    /// `N entries not in place (M missing from the backup, D damaged in it, O not restored for
    /// another reason)`, the zero counts left out, then `; the first 20 by path are named` when
    /// the list is cut.
    public var summary: String {
        let parts = [(missing, "missing from the backup"), (damaged, "damaged in it"), (other, "not restored for another reason")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        let cut = problems.count > Self.listedLimit ? "; the first \(Self.listedLimit) by path are named" : ""
        return "\(problems.count) entries not in place (\(parts.joined(separator: ", ")))" + cut
    }
}
