import SyncKernel

/// The one error type of the SyncJoin module: why joining an account, or deciding a sign-in
/// request, ended without the outcome asked for. Failures of the account directory's files stay
/// `SyncKernelError`s (`keyFileUnavailable`, `malformedKeyFile`, ...).
///
/// Invariant: `code` is one of `Code.all` (stable across releases), and `description` holds the
/// code and a fixed detail, never user data.
public struct JoinError: StableError, Hashable {
    /// The stable reason.
    public let code: Code
    /// A fixed, user-data-free detail.
    public let detail: String

    /// Creates an error with a stable code and a detail that must not contain user data.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A stable machine-readable reason of joining: SK310 to SK312 and SK314, the strings these
    /// reasons carried when they were the kernel's (`SyncKernelError.Code` no longer lists them;
    /// SK313 is the kernel's `conflictChanged`).
    ///
    /// Invariants: the initialiser is private, so no other module mints one; `all` lists every
    /// code in code order; code strings and names never change or pass to another reason.
    public struct Code: StableCode {
        /// The stable code string, for example "SK310".
        public let rawValue: String
        /// The symbolic name, for example "joinRejected".
        public let name: String

        private init(_ rawValue: String, _ name: String) {
            self.rawValue = rawValue
            self.name = name
        }

        /// A device asking to join an account was refused by the sibling that saw its sign-in
        /// request; nothing was stored on either side.
        public static let joinRejected = Code("SK310", "joinRejected")
        /// A device asking to join an account waited out its time with no grant: no sibling
        /// answered (with no sibling online nothing admits a device), or one answered and nobody
        /// approved; nothing was stored.
        public static let joinTimedOut = Code("SK311", "joinTimedOut")
        /// An approve or reject named no pending sign-in request: never made, already decided,
        /// or expired. Nothing was sent.
        public static let approvalNotPending = Code("SK312", "approvalNotPending")
        /// A sibling refused a device's sign-in request without asking its user: the credential
        /// already admitted a device, was revoked, or as many requests with it as a sibling keeps
        /// already wait for a decision. Nothing was stored on either side.
        public static let joinRefused = Code("SK314", "joinRefused")

        /// Every code, in code order.
        public static let all: [Code] = [joinRejected, joinTimedOut, approvalNotPending, joinRefused]
    }
}
