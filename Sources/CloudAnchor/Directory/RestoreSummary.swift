import Foundation
import Glibc

/// What a completed directory restore placed.
///
/// Invariant: every count is of manifest entries now in place in the target.
public struct RestoreSummary: Sendable, Hashable {
    /// Regular files, all verified by content hash.
    public var files: Int
    /// Of those, files that were already there with the right content.
    public var alreadyInPlace: Int
    /// Links.
    public var links: Int
    /// Folders.
    public var folders: Int
}
