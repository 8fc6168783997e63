/// What a field merge means for a local edit, which the conformance kit judges edits by.
package enum MergeKind: Sendable, Hashable {
    /// A lattice join: values only grow; a legal edit joins its value with the held one.
    case lattice
    /// Content fixed when written: a legal row never edits it.
    case immutable
    /// A `Register`: a legal edit sets a value under the next edit counter.
    case register
    /// A merge the namespace wrote: any value may be set, and the device's own join must keep it.
    case custom
}
