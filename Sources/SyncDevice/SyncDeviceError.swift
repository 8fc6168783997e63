import SyncKernel

/// The one error type of the SyncDevice module: what the embedded device itself refused or could
/// not finish. Its API throws these beside the errors of the layers under it (`SyncKernelError`
/// for the store, `RelayError` for the relay, `JoinError` for joining), each a `StableError`.
///
/// Invariant: `code` is one of `Code.all` (stable across releases), and `description` holds the
/// code and a fixed detail, never user data.
public struct SyncDeviceError: StableError, Hashable {
    /// The stable reason.
    public let code: Code
    /// A fixed, user-data-free detail.
    public let detail: String

    /// Creates an error with a stable code and a detail that must not contain user data.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A stable machine-readable reason of the device layer: SK701 to SK704, the strings these
    /// reasons carried when they were the kernel's (`SyncKernelError.Code` no longer lists them).
    ///
    /// Invariants: the initialiser is private, so no other module mints one; `all` lists every
    /// code in code order; code strings and names never change or pass to another reason.
    public struct Code: StableCode {
        /// The stable code string, for example "SK701".
        public let rawValue: String
        /// The symbolic name, for example "deviceNotRunning".
        public let name: String

        private init(_ rawValue: String, _ name: String) {
            self.rawValue = rawValue
            self.name = name
        }

        /// A write (or another request that needs the running loop) reached a device that is not
        /// started, or is stopping or stopped, or a second snapshot request while one is under
        /// way; nothing was written.
        public static let deviceNotRunning = Code("SK701", "deviceNotRunning")
        /// Every sibling asked for a snapshot declined (busy, or not serving snapshots now); the
        /// device is a member and the digest loop fills it instead.
        public static let snapshotDeclined = Code("SK702", "snapshotDeclined")
        /// A sibling asked for a snapshot tried and failed (its export, sealing or upload threw;
        /// the sibling's stable code travels apart): not a decline.
        public static let snapshotSiblingFailed = Code("SK703", "snapshotSiblingFailed")
        /// No sibling answered the snapshot request within the re-send budget (or the device knows
        /// no sibling to ask); nothing was imported.
        public static let snapshotTimedOut = Code("SK704", "snapshotTimedOut")

        /// Every code, in code order.
        public static let all: [Code] = [deviceNotRunning, snapshotDeclined, snapshotSiblingFailed, snapshotTimedOut]
    }
}
