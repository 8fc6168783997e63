/// A broken invariant a fuzz target found: the input was handled without a typed refusal but
/// something it must keep did not hold (a round trip, an unchanged store, its structures).
///
/// Invariant: `description` names the target and the check, never the input's bytes, so a report
/// stays short; the input itself is what libFuzzer writes as the crash file.
package struct FuzzViolation: Error, Sendable, CustomStringConvertible {
    /// What did not hold.
    package let description: String

    /// Creates a violation saying what did not hold.
    package init(_ description: String) {
        self.description = description
    }
}
