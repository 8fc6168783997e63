import SyncKernel

/// Every check a namespace failed in one run of the suite, in the order to fix them.
///
/// Invariant: holds at least one failure; `failures` follow the check order of
/// `ConformanceFailure.Check` (a declaration or encoding failure first, since later checks often
/// fail because of it), and each carries the seed that replays it.
public struct ConformanceReport: Error, CustomStringConvertible {
    /// The namespace's name.
    public let namespace: String
    /// The seed of the run.
    public let seed: UInt64
    /// The failures, first to fix first.
    public let failures: [ConformanceFailure]

    /// The failure of `check`, if that check failed.
    public func failure(_ check: ConformanceFailure.Check) -> ConformanceFailure? {
        failures.first { $0.check == check }
    }

    public var description: String {
        let checks = failures.map { "'\($0.check.rawValue)'" }.joined(separator: ", ")
        var text = "namespace \(namespace) failed \(failures.count) of \(ConformanceFailure.Check.allCases.count) checks (seed \(seed)): "
            + "\(checks); fix them in this order\n"
        for (index, failure) in failures.enumerated() {
            text += "\(index + 1). \(failure)\n"
        }
        return text
    }
}
