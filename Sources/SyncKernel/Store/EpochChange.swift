/// A fresh device epoch a store took, and why.
///
/// Invariant: `epoch` is the epoch the store's local writes count under from then on; it was
/// recorded in the store before any local write counted under it.
public struct EpochChange: Sendable, Hashable {
    /// The evidence that made the store take it.
    public let reason: EpochReason
    /// The epoch taken.
    public let epoch: DeviceEpoch
}
