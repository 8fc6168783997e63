/// Limits that bound what `CBORReader` will accept from untrusted bytes.
///
/// Invariant: a reader configured with these limits recurses at most `maxDepth` levels and
/// reads at most `maxInputBytes`, whatever the input claims; what it builds from an input of `n`
/// bytes is charged to a `DecodeBudget` and never exceeds `4 * n` bytes plus `DecodeBudget.slack`.
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

    /// The limits frames, rows and vectors are read under: depth 24, a million elements, and
    /// 16,928,768 bytes, the largest frame (`SyncFrame.maxFrameBytes`, derived there; a row is
    /// at most `InspectedRow.maxRowBytes`, below it).
    package static let frame = CBORLimits(maxDepth: 24, maxContainerCount: 1 << 20, maxInputBytes: 16_928_768)
}
