import SyncKernel

/// A reply session a session envelope names before its accept was taken in: the sibling this
/// device's pair hello went to, and the index the hello reserved.
///
/// Invariant: `index` was reserved for `sibling` (`EnvelopeOpener.reserveReply`) and no session
/// was filed under it when the envelope was checked.
public struct AwaitedReply: Sendable, Hashable {
    /// The sibling sending on the reply session.
    public let sibling: DeviceID
    /// The reply index of the pair hello it answers.
    public let index: UInt32
}
