import SyncEnvelope
import SyncKernel

/// What a device that was granted an account ends with: an account directory holding the
/// account, its own keys and certificate under its name, and its siblings' certificates; a
/// `SyncDevice` (or `AccountDirectory.envelopeKeys(name:)` and `roster(for:)`) runs on it as on
/// one `synckernel account add-device` made.
///
/// Invariant: made only after every file of the directory was written and renamed into place
/// (`AccountDirectory.install`), so a `JoinedAccount` always names a whole directory.
public struct JoinedAccount: Sendable, Hashable {
    /// The account directory's path.
    public let directoryPath: String
    /// The device's name in it.
    public let name: String
    /// The device.
    public let device: DeviceID
    /// The account handle: the account's userIDHash.
    public let account: [UInt8]

    /// The account directory.
    public var directory: AccountDirectory { AccountDirectory(path: directoryPath) }
}
