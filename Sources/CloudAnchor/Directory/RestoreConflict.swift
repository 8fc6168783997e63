import Foundation
import Glibc

/// Something in the target that differs from the manifest at one of its paths.
///
/// Invariant: a blocking conflict (a non-empty folder where a file or link goes, or a target
/// that is not a folder) stops the restore even with `--overwrite`; the others are replaced
/// with it.
public struct RestoreConflict: Sendable, Hashable, CustomStringConvertible {
    /// What is in the way.
    public enum Kind: String, Sendable, Hashable {
        /// A file with other content (or of another size).
        case fileDiffers = "holds a different file"
        /// A link with another target.
        case linkDiffers = "holds a different link"
        /// Something that is not a folder where a folder goes.
        case notAFolder = "is not a folder"
        /// A folder where a file or link goes.
        case folderInTheWay = "is a folder"
        /// A FIFO, socket or device.
        case otherKind = "holds a special file"
    }

    /// The relative path ("." for the target itself).
    public var path: String
    /// What is in the way.
    public var kind: Kind
    /// Whether `--overwrite` cannot clear it.
    public var isBlocking: Bool

    /// `<path> <kind>`.
    public var description: String {
        "\(path) \(kind.rawValue)" + (isBlocking ? " (not empty: remove it yourself)" : "")
    }
}
