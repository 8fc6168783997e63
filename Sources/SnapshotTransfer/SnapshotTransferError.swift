import SyncKernel

/// The one error type of the SnapshotTransfer module: why a snapshot, a transfer message or a
/// blob could not be read, checked or stored. The store's failures during an export or an import
/// stay `SyncKernelError`s (and so do a message's encoding faults: `truncatedInput`,
/// `nonCanonicalEncoding`, ...); a call that can meet both is declared `throws` and names them.
///
/// Invariant: `code` is one of `Code.all` (stable across releases), and `description` holds the
/// code and a fixed detail, never user data, a key or blob bytes.
public struct SnapshotTransferError: StableError, Hashable {
    /// The stable reason.
    public let code: Code
    /// A fixed, user-data-free detail.
    public let detail: String

    /// Creates an error with a stable code and a detail that must not contain user data.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A stable machine-readable reason of the snapshot transfer: SK211 to SK215, SK608 and
    /// SK609, the strings these reasons carried when they were the kernel's (`SyncKernelError.Code`
    /// no longer lists them).
    ///
    /// Invariants: the initialiser is private, so no other module mints one; `all` lists every
    /// code in code order; code strings and names never change or pass to another reason.
    public struct Code: StableCode {
        /// The stable code string, for example "SK211".
        public let rawValue: String
        /// The symbolic name, for example "snapshotHashMismatch".
        public let name: String

        private init(_ rawValue: String, _ name: String) {
            self.rawValue = rawValue
            self.name = name
        }

        /// A snapshot blob whose bytes do not match the SHA-256 or the size its offer carries:
        /// checked before anything is decrypted, so nothing of it was imported.
        public static let snapshotHashMismatch = Code("SK211", "snapshotHashMismatch")
        /// A sealed snapshot that does not authenticate under its offer's key: a chunk altered,
        /// missing, reordered or cut short, a header that is not the sealed format. Every chunk is
        /// checked before anything is imported.
        public static let snapshotUnauthentic = Code("SK212", "snapshotUnauthentic")
        /// A snapshot that authenticates but whose records are not the snapshot format: a record
        /// out of place or of an unknown type, a length out of bounds, a page that is not a
        /// `reconcile_resp` of rows and deletes, a trailer whose counts disagree.
        public static let malformedSnapshot = Code("SK213", "malformedSnapshot")
        /// Bytes that are not a transfer message this build reads: another magic, version or kind.
        public static let unsupportedTransferMessage = Code("SK214", "unsupportedTransferMessage")
        /// A sealing algorithm this build does not know, or that this machine cannot run
        /// (AES-256-GCM without the CPU's AES instructions).
        public static let unsupportedAlgorithm = Code("SK215", "unsupportedAlgorithm")
        /// No blob under that id in the blob store: never stored, deleted, or expired (an expired
        /// blob is removed when it is asked for).
        public static let blobNotFound = Code("SK608", "blobNotFound")
        /// The blob store failed: a file or server operation did not complete, or what it holds
        /// under a blob id is not a whole blob. A partly written blob is removed.
        public static let blobStoreFailed = Code("SK609", "blobStoreFailed")

        /// Every code, in code order.
        public static let all: [Code] = [
            snapshotHashMismatch, snapshotUnauthentic, malformedSnapshot, unsupportedTransferMessage, unsupportedAlgorithm,
            blobNotFound, blobStoreFailed,
        ]
    }
}
