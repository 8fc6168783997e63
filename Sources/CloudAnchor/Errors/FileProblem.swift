import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A local file or folder the engine could not use, named for the user.
///
/// Invariant: `path` is relative to the folder being backed up or restored ("." names that
/// folder itself) and `description` is `<code>: <cause>: <path>`
/// (`local_io: permission denied: photos/2024/a.jpg`). It is the one error of CloudAnchor whose
/// description carries a user's path, and only the path: never content or a server's message.
public struct FileProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why the file could not be used.
    public enum Cause: String, Error, Sendable, Hashable, CaseIterable {
        /// The process may not read (or write) it.
        case permissionDenied = "permission denied"
        /// It does not exist.
        case notFound = "no such file or folder"
        /// A path component that must be a folder is not one.
        case notAFolder = "not a folder"
        /// It changed while it was read (size, modification time, inode or kind).
        case changedWhileReading = "changed while it was read"
        /// Its name is too long for the file system.
        case nameTooLong = "name too long"
        /// The disk has no room left.
        case noSpace = "no space left on the device"
        /// Any other input/output failure.
        case ioError = "input/output error"

        /// The cause an `errno` value names.
        public init(errno code: Int32) {
            switch code {
            case EACCES, EPERM, EROFS: self = .permissionDenied
            case ENOENT: self = .notFound
            case ENOTDIR: self = .notAFolder
            case ELOOP: self = .changedWhileReading
            case ENAMETOOLONG: self = .nameTooLong
            case ENOSPC, EDQUOT: self = .noSpace
            default: self = .ioError
            }
        }

        /// The cause a Foundation file error names (its POSIX code, directly or underlying).
        public init(_ error: any Error) {
            let error = error as NSError
            if error.domain == NSPOSIXErrorDomain {
                self.init(errno: Int32(error.code))
            } else if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
                self.init(errno: Int32(underlying.code))
            } else {
                switch error.code {
                case CocoaError.fileWriteNoPermission.rawValue, CocoaError.fileReadNoPermission.rawValue: self = .permissionDenied
                case CocoaError.fileWriteOutOfSpace.rawValue: self = .noSpace
                default: self = .ioError
                }
            }
        }
    }

    /// The stable error the problem maps to (`localIO` for local files, `storageFull` for no space).
    public var error: CloudError
    /// Why.
    public var cause: Cause
    /// The relative path, as the user knows it.
    public var path: String

    /// Creates a problem; `error` defaults to what `cause` maps to.
    public init(_ cause: Cause, path: String, error: CloudError? = nil) {
        self.cause = cause
        self.path = path
        self.error = error ?? (cause == .noSpace ? .storageFull : .localIO)
    }

    /// `<code>: <cause>: <path>`.
    public var description: String {
        "\(error.code): \(cause.rawValue): \(path)"
    }
}
