/// How a fuzz target handled one input that broke nothing.
///
/// Invariant: `refused` means every decoder involved threw a typed `SyncKernelError` (or the
/// replica reported the frame refused); `accepted` means at least one step decoded and its
/// round-trip and store checks held.
package enum FuzzOutcome: Sendable, Hashable {
    /// The input (or one of its steps) was read and passed every check.
    case accepted
    /// Every part of the input was refused with a typed error.
    case refused
}
