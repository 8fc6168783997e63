import Foundation

/// A request for the one writer slot of a storage.
///
/// Invariant: `token` names the claimant across runs (a backup's state file keeps one), so a
/// lease held under the same token is the claimant's own, left by a run that was killed;
/// `owner` is for people (host and process) and never compared.
public struct LeaseClaim: Sendable, Hashable {
    /// Who claims, for messages: host and process id.
    public var owner: String
    /// The claimant's stable id.
    public var token: String
    /// How long the lease lasts unless renewed, in seconds.
    public var duration: Double
    /// The claim's clock reading.
    public var now: Date
    /// The backend's handle of a lease this claimant held before (a WebDAV lock token), if any.
    public var previousHandle: String?

    /// Creates a claim.
    public init(owner: String, token: String, duration: Double, now: Date, previousHandle: String? = nil) {
        self.owner = owner
        self.token = token
        self.duration = duration
        self.now = now
        self.previousHandle = previousHandle
    }

    /// This process as an owner: `<host> pid <pid>`.
    public static var thisProcess: String {
        var name = [CChar](repeating: 0, count: 256)
        let host = gethostname(&name, name.count) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "unknown host"
        return "\(host) pid \(ProcessInfo.processInfo.processIdentifier)"
    }
}

/// A lease the storage granted.
///
/// Invariant: while `expiresAt` has not passed (and for a folder while the holding process
/// lives) no other claimant is granted the storage's writer slot.
public struct RemoteLease: Sendable, Hashable {
    /// The holder, for messages.
    public var owner: String
    /// The holder's stable id.
    public var token: String
    /// When the lease ends unless renewed.
    public var expiresAt: Date
    /// The backend's handle (a WebDAV lock token), kept in the state so a killed run's successor
    /// can take its own lease back.
    public var handle: String?

    /// Creates a lease.
    public init(owner: String, token: String, expiresAt: Date, handle: String? = nil) {
        self.owner = owner
        self.token = token
        self.expiresAt = expiresAt
        self.handle = handle
    }
}

/// A storage's answer to a lease claim.
///
/// Invariant: `.held` means another claimant holds the slot and nothing was written.
public enum LeaseAnswer: Sendable, Hashable {
    /// The claimant holds the slot.
    case granted(RemoteLease)
    /// Another claimant holds it: who, and until when if known.
    case held(owner: String, until: Date?)
}
