import Foundation
import NatsRelay
import SnapshotTransfer
import SyncKernel

/// Where a device parks the sealed snapshots it offers and fetches the ones offered to it.
///
/// Invariants: a plain value (nothing is opened until a snapshot is asked for or offered); a
/// folder store only carries a snapshot between devices that share that folder (one machine, a
/// shared file system: demos and tests), the JetStream store between any devices on the NATS
/// servers it names (which must run with JetStream, `nats-server -js`), usually the relay's.
/// Opening one checks nothing beyond what it is given.
public enum SyncDeviceBlobs: Sendable, Hashable {
    /// A `FolderBlobStore` in this folder (made with mode 0700 when missing).
    case folder(String)
    /// A `JetStreamBlobStore` on the NATS servers these options reach.
    case jetStream(NatsRelayOptions)

    /// The embedded default for a store at `storePath`: the folder `synckernel-blobs` beside it,
    /// so devices whose stores share a folder share their blobs.
    public static func beside(storePath: String) -> SyncDeviceBlobs {
        let parent = (storePath as NSString).deletingLastPathComponent
        return .folder((parent.isEmpty ? "." : parent) + "/synckernel-blobs")
    }

    /// Opens the store: throws `blobStoreFailed` when the folder cannot be made, no server answers,
    /// or the options are refused (a bound out of range, NATS options the client refuses: the
    /// detail then names the refusing error's code).
    func open() throws(SnapshotTransferError) -> any BlobStore {
        do {
            switch self {
            case .folder(let path): return try FolderBlobStore(directory: path)
            case .jetStream(let options): return try JetStreamBlobStore(relay: options)
            }
        } catch let error as SnapshotTransferError {
            throw error
        } catch {
            throw SnapshotTransferError(.blobStoreFailed, "the blob store's options were refused: \(ErrorReport(error).code)")
        }
    }
}
