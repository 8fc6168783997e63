/// What a frame of an exchange is: the namespace it is about, and whether it answers a step of
/// a round this replica started.
///
/// Invariant: `answersRound` is true only for bodies the sibling sends in reply to this device's
/// own step, so the replica ends its wait for that namespace when one arrives.
package struct ExchangeStep: Sendable, Hashable {
    /// The namespace the frame is about.
    package let namespace: String
    /// The frame answers this device's step of the namespace's round.
    package let answersRound: Bool

    /// A step about `namespace`, answering this device's own step or not.
    package init(namespace: String, answersRound: Bool) {
        self.namespace = namespace
        self.answersRound = answersRound
    }
}
