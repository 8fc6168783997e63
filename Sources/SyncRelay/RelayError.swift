import SyncKernel

/// The one error type of the relay modules (`SyncRelay`, and `NatsRelay` for its connections):
/// what a relay refused or could not do.
///
/// Invariant: `code` is one of `Code.all` (stable across releases: hosts may persist or match on
/// it), and `description` holds the code and a fixed detail, never user data or a payload.
public struct RelayError: StableError, Hashable {
    /// The stable reason.
    public let code: Code
    /// A fixed, user-data-free detail (the step that failed, the bound that was passed).
    public let detail: String

    /// Creates an error with a stable code and a detail that must not contain user data.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    /// A stable machine-readable reason of the relay layer: SK601 to SK607, the strings these
    /// reasons carried when they were the kernel's (`SyncKernelError.Code` no longer lists them).
    ///
    /// Invariants: the initialiser is private, so no other module mints one; `all` lists every
    /// code in code order; code strings and names never change or pass to another reason.
    public struct Code: StableCode {
        /// The stable code string, for example "SK604".
        public let rawValue: String
        /// The symbolic name, for example "relayNotConnected".
        public let name: String

        private init(_ rawValue: String, _ name: String) {
            self.rawValue = rawValue
            self.name = name
        }

        /// Relay options the relay cannot use: no server, a bound out of range, or a server URL,
        /// TLS file or credentials file the client library refuses. Nothing was connected.
        public static let invalidRelayConfiguration = Code("SK601", "invalidRelayConfiguration")
        /// A relay subject that is empty, longer than its bound, or holds what the relay does not
        /// take in a subject (whitespace; for NATS also a wildcard `*`, `>` or an empty token).
        public static let invalidSubject = Code("SK602", "invalidSubject")
        /// The relay client could not set up the connection or its inbox subscription (a server
        /// that cannot be reached is not this: the client keeps trying it).
        public static let relayConnectionFailed = Code("SK603", "relayConnectionFailed")
        /// The relay connection is not connected now (it is connecting or reconnecting): nothing
        /// was sent and nothing is kept for later.
        public static let relayNotConnected = Code("SK604", "relayNotConnected")
        /// The relay connection was closed: nothing more is sent or received on it.
        public static let relayClosed = Code("SK605", "relayClosed")
        /// A payload longer than the relay's message bound (or needing more chunks than it allows);
        /// nothing of it was sent.
        public static let relayPayloadTooLarge = Code("SK606", "relayPayloadTooLarge")
        /// The relay client refused a publish (its buffer full, an I/O error); chunks of the
        /// payload sent before it are dropped by the receiver when they expire.
        public static let relayPublishFailed = Code("SK607", "relayPublishFailed")

        /// Every code, in code order.
        public static let all: [Code] = [
            invalidRelayConfiguration, invalidSubject, relayConnectionFailed, relayNotConnected, relayClosed,
            relayPayloadTooLarge, relayPublishFailed,
        ]
    }
}
