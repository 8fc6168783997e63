import Foundation
import Glibc

/// A manifest entry a restore could not put in place, and why.
///
/// Invariant: `missing` and `damaged` are the backup's fault (the next backup from the source
/// uploads the file again); the other kinds are this machine's or the connection's.
public struct RestoreProblem: Sendable, Hashable, CustomStringConvertible {
    /// Why.
    public enum Kind: Sendable, Hashable {
        /// The cloud does not hold the file the manifest names.
        case missing
        /// The cloud's copy does not match the manifest's hash.
        case damaged
        /// The download failed with this error.
        case failed(CloudError)
        /// The app's placement rejected it.
        case rejected
        /// It could not be written locally.
        case notPlaced(FileProblem.Cause)
        /// Something else appeared at its path during the restore.
        case inTheWay
        /// Not tried yet in this run.
        case pending
    }

    /// The relative path.
    public var path: String
    /// Why.
    public var kind: Kind

    /// Creates a problem.
    public init(path: String, kind: Kind) {
        self.path = path
        self.kind = kind
    }

    /// The problem a file status stands for.
    init(path: String, status: RestoreFileStatus) {
        self.path = path
        if status.wasRejected {
            kind = .rejected
        } else {
            switch status.lastError {
            case .notFound?: kind = .missing
            case .contentMismatch?: kind = .damaged
            case .localIO?: kind = .notPlaced(.ioError)
            case let error?: kind = .failed(error)
            case nil: kind = .pending
            }
        }
    }

    /// `<what>: <path>`.
    public var description: String {
        switch kind {
        case .missing: "missing from the backup: \(path)"
        case .damaged: "damaged in the backup: \(path)"
        case .failed(let error): "not restored (\(error.code)): \(path)"
        case .rejected: "not placed (rejected): \(path)"
        case .notPlaced(let cause): "not placed (\(cause.rawValue)): \(path)"
        case .inTheWay: "not placed (something else is in the way): \(path)"
        case .pending: "not restored yet: \(path)"
        }
    }
}
