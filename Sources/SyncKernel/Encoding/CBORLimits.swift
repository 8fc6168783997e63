/// Limits that bound what `CBORReader` will accept from untrusted bytes.
///
/// Invariant: a reader configured with these limits allocates at most about `maxInputBytes`
/// of payload and recurses at most `maxDepth` levels, whatever the input claims.
package struct CBORLimits: Sendable, Hashable {
    /// Deepest nesting of arrays, maps and tags.
    package var maxDepth: Int
    /// Most elements (or map entries) in one container.
    package var maxContainerCount: Int
    /// Largest whole input.
    package var maxInputBytes: Int

    /// Creates limits.
    package init(maxDepth: Int, maxContainerCount: Int, maxInputBytes: Int) {
        self.maxDepth = maxDepth
        self.maxContainerCount = maxContainerCount
        self.maxInputBytes = maxInputBytes
    }

    /// The limits frames are read under: depth 24, a million elements, 64 MiB.
    package static let frame = CBORLimits(maxDepth: 24, maxContainerCount: 1 << 20, maxInputBytes: 64 << 20)
}
