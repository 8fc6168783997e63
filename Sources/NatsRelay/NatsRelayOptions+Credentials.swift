import SyncRelay
import SyncKernel

extension NatsRelayOptions {
    /// How a connection authenticates to the relay.
    ///
    /// Invariant: `description` names the kind of credential only, never a user, password,
    /// token or file path, so options can be logged.
    public enum Credentials: Sendable, Hashable, CustomStringConvertible {
        /// No authentication: a server with no authorisation configured.
        case none
        /// A user name and password (`authorization { user, password }` on the server).
        case userPassword(user: String, password: String)
        /// A token (`authorization { token }` on the server).
        case token(String)
        /// A NATS credentials file (`.creds`: a user JWT and its NKey seed), for servers run in
        /// operator mode.
        case credentialsFile(path: String)

        public var description: String {
            switch self {
            case .none: "none"
            case .userPassword: "user and password"
            case .token: "token"
            case .credentialsFile: "credentials file"
            }
        }

        /// Refuses empty values, which the client would send as no credentials at all.
        func validate() throws(RelayError) {
            switch self {
            case .none:
                return
            case .userPassword(let user, let password):
                guard !user.isEmpty, !password.isEmpty else {
                    throw RelayError(.invalidRelayConfiguration, "an empty user or password")
                }
            case .token(let token):
                guard !token.isEmpty else { throw RelayError(.invalidRelayConfiguration, "an empty token") }
            case .credentialsFile(let path):
                guard !path.isEmpty else { throw RelayError(.invalidRelayConfiguration, "an empty credentials path") }
            }
        }
    }
}
