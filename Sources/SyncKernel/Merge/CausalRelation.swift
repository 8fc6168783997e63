/// The four ways two version vectors can relate.
public enum CausalRelation: Sendable, Hashable {
    /// Ahead somewhere, behind nowhere: this version descends from the other.
    case dominates
    /// Behind somewhere, ahead nowhere: the other descends from this.
    case dominated
    /// Identical counters.
    case equal
    /// Ahead somewhere and behind somewhere: a genuine fork.
    case concurrent
}
