import SnapshotTransfer

/// A snapshot request's answer as a device event tells it: what a sibling offered, declined or
/// failed at, or why this device set an offer aside.
///
/// Invariant: built from a transfer message alone, it keeps nothing that fetches or opens a blob
/// (no blob id, key, nonce or hash), so an event stream an app logs leaks no snapshot; its words
/// (the raw values) are the ones `SyncDeviceEvent.json()` prints and never change.
public enum SnapshotAnswer: Sendable, Hashable {
    /// No answer from this sibling yet.
    case pending
    /// A sealed snapshot of `bytes` bytes waits in the blob store, sealed with `algorithm`.
    case offered(bytes: Int64, algorithm: String)
    /// The sibling declined to export one.
    case declined(Decline)
    /// The sibling tried and failed at `stage`, with the failure's stable code ("SK501").
    case broken(stage: Stage, code: String)
    /// This device set the sibling's offer aside (and acked it so).
    case abandoned(Refusal)

    /// Why a sibling declined.
    public enum Decline: String, Sendable, Hashable, CaseIterable {
        /// It exports a snapshot for another device already.
        case busy
        /// It does not export snapshots.
        case unwilling
    }

    /// The step a sibling's snapshot failed at.
    public enum Stage: String, Sendable, Hashable, CaseIterable {
        /// Reading its store.
        case export
        /// Sealing the snapshot.
        case seal
        /// Storing the sealed blob.
        case upload
    }

    /// Why the requesting device did not absorb an offered snapshot.
    public enum Refusal: String, Sendable, Hashable, CaseIterable {
        /// The blob did not match the offer's hash or size (nothing was decrypted).
        case hashMismatch
        /// The blob did not authenticate under the offer's key.
        case unauthentic
        /// The blob store had no such blob (never stored, deleted or expired).
        case blobUnavailable
        /// Fetching the blob failed.
        case downloadFailed
        /// The snapshot authenticated but is not the snapshot format.
        case malformedSnapshot
        /// The snapshot was made under another schema or names another account.
        case schemaMismatch
        /// The offer is larger than the device accepts.
        case tooLarge
        /// The offer's sealing algorithm cannot run here.
        case unsupportedAlgorithm
        /// Writing the rows failed.
        case importFailed
    }

    /// The answer `message` gives (a request or an ack is no answer: `pending`).
    package init(_ message: TransferMessage) {
        switch message {
        case .offer(let offer): self = .offered(bytes: offer.size, algorithm: offer.algorithm.description)
        case .decline(let decline): self = .declined(Decline(decline.reason))
        case .broken(let broken): self = .broken(stage: Stage(broken.stage), code: broken.code)
        case .request, .ack: self = .pending
        }
    }

    /// The answer a request session holds from one sibling.
    package init(_ answer: SnapshotRequestSession.Answer) {
        switch answer {
        case .pending: self = .pending
        case .offered(let offer): self.init(.offer(offer))
        case .declined(let reason): self = .declined(Decline(reason))
        case .broken(let broken): self = .broken(stage: Stage(broken.stage), code: broken.code)
        case .abandoned(let reason): self = .abandoned(Refusal(reason))
        }
    }
}

extension SnapshotAnswer.Decline {
    /// The decline a transfer message carries.
    package init(_ reason: SyncDecline.Reason) {
        switch reason {
        case .busy: self = .busy
        case .unwilling: self = .unwilling
        }
    }
}

extension SnapshotAnswer.Stage {
    /// The stage a transfer message names.
    package init(_ stage: SyncBroken.Stage) {
        switch stage {
        case .export: self = .export
        case .seal: self = .seal
        case .upload: self = .upload
        }
    }
}

extension SnapshotAnswer.Refusal {
    /// The refusal an ack carries.
    package init(_ reason: SyncAck.Reason) {
        switch reason {
        case .hashMismatch: self = .hashMismatch
        case .unauthentic: self = .unauthentic
        case .blobUnavailable: self = .blobUnavailable
        case .downloadFailed: self = .downloadFailed
        case .malformedSnapshot: self = .malformedSnapshot
        case .schemaMismatch: self = .schemaMismatch
        case .tooLarge: self = .tooLarge
        case .unsupportedAlgorithm: self = .unsupportedAlgorithm
        case .importFailed: self = .importFailed
        }
    }
}
