import Foundation
import NatsRelay
import SnapshotTransfer
import SyncKernel

/// Where a device parks the sealed snapshots it offers and fetches the ones offered to it.
///
/// Invariants: a plain value (nothing is opened until a snapshot is asked for or offered); a
/// folder store only carries a snapshot between devices that share that folder (one machine, a
/// shared file system: demos and tests), the JetStream store between any devices on the relay's
/// servers (which must run with JetStream, `nats-server -js`).
public enum SyncDeviceBlobs: Sendable, Hashable {
    /// A `FolderBlobStore` in this folder (made with mode 0700 when missing).
    case folder(String)
    /// A `JetStreamBlobStore` on the device's relay servers, with the device's relay options.
    case jetStream

    /// The embedded default for a store at `storePath`: the folder `synckernel-blobs` beside it,
    /// so devices whose stores share a folder share their blobs.
    public static func beside(storePath: String) -> SyncDeviceBlobs {
        let parent = (storePath as NSString).deletingLastPathComponent
        return .folder((parent.isEmpty ? "." : parent) + "/synckernel-blobs")
    }

    /// Opens the store (`blobStoreFailed` when the folder cannot be made or no server answers).
    func open(relay: NatsRelayOptions) throws(SyncKernelError) -> any BlobStore {
        switch self {
        case .folder(let path): try FolderBlobStore(directory: path)
        case .jetStream: try JetStreamBlobStore(relay: relay)
        }
    }
}
