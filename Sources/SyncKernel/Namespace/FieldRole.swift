/// What a declared field is to the leaf.
package enum FieldRole: Sendable, Hashable {
    /// The leaf commits to it: the merge rule must converge it.
    case hashed
    /// Kept out of the leaf, with a category and a reason.
    case excluded(ExcludedField.Category, reason: String)
    /// Part of an enclosing group or record, which decides.
    case member
}
