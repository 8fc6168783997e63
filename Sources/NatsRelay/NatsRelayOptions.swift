import SyncRelay
import SyncKernel

/// How a `NatsRelayConnection` reaches its relay: the servers, the credentials and TLS, the
/// reconnect policy and the bounds on what it sends and reassembles.
///
/// Invariants: the defaults connect to a local `nats-server` started with no configuration
/// (`nats://127.0.0.1:4222`, no credentials, no TLS) and reconnect forever; `validated()` refuses
/// (with `invalidRelayConfiguration`) any value the connection could not honour, before anything
/// is connected; nothing here is ever printed (`description` redacts the credentials).
public struct NatsRelayOptions: Sendable, Hashable, CustomStringConvertible {
    /// Server URLs (`nats://host:port`, `tls://host:port`): one server or nodes of one cluster.
    /// The client connects to one of them and fails over to the others, and to the nodes the
    /// cluster gossips, when it loses its server.
    public var servers: [String] = ["nats://127.0.0.1:4222"]
    /// The name the connection shows in the server's monitoring, if any.
    public var connectionName: String?
    /// How the connection authenticates.
    public var credentials: Credentials = .none
    /// TLS settings; nil for plain TCP (a `tls://` URL still asks for TLS).
    public var tls: TLS?
    /// How long one connection attempt to one server may take.
    public var connectTimeoutMillis: Int64 = 2_000
    /// Delay between two reconnect attempts to the same server (after trying every server).
    public var reconnectWaitMillis: Int64 = 500
    /// Upper bound of the random delay added to `reconnectWaitMillis`.
    public var reconnectJitterMillis: Int64 = 100
    /// Reconnect attempts per server before giving up and closing; nil: never give up.
    public var maxReconnectAttempts: Int?
    /// Interval of the client's pings, which find a server that went silent without closing the socket.
    public var pingIntervalMillis: Int64 = 20_000
    /// Pings without answer after which the connection counts as lost.
    public var maxPingsOut = 2
    /// The largest payload `publish` takes and the receiver reassembles. The default holds the
    /// largest `sync_delta` frame (`SyncFrame.maxFrameBytes`, about 16.2 MiB) with room for an envelope.
    public var maxMessageBytes = 20 * 1024 * 1024
    /// The largest NATS message the connection publishes, header included; nil: the connected
    /// server's `max_payload` (1 MiB unless configured). A smaller server limit always wins.
    public var maxChunkBytes: Int?
    /// The most chunks one payload may take, on either side.
    public var maxChunksPerMessage = 4_096
    /// Bytes of partial payloads the receiver keeps while their other chunks travel.
    public var reassemblyBudgetBytes = 40 * 1024 * 1024
    /// Partial payloads the receiver keeps at once; the oldest is dropped for a newer one.
    public var maxPartialMessages = 16
    /// How long a partial payload waits for its missing chunks before it is dropped.
    public var reassemblyTimeoutMillis: Int64 = 30_000
    /// Received payloads buffered for a consumer that has not taken them yet; more are dropped.
    public var receiveBufferMessages = 256

    /// The defaults: a local `nats-server` with no configuration.
    public init() {}

    /// Options for `servers` with every other setting at its default.
    public init(servers: [String]) {
        self.servers = servers
    }

    /// The options, or `invalidRelayConfiguration` naming the first setting out of range.
    public func validated() throws(RelayError) -> NatsRelayOptions {
        guard !servers.isEmpty else { throw RelayError(.invalidRelayConfiguration, "no server") }
        guard servers.allSatisfy({ !$0.isEmpty && !$0.contains(where: \.isWhitespace) && !$0.contains(",") }) else {
            throw RelayError(.invalidRelayConfiguration, "a server URL is empty or holds whitespace or a comma")
        }
        guard connectTimeoutMillis > 0, reconnectWaitMillis >= 0, reconnectJitterMillis >= 0,
              pingIntervalMillis > 0, maxPingsOut > 0 else {
            throw RelayError(.invalidRelayConfiguration, "a timing is out of range")
        }
        guard maxReconnectAttempts.map({ $0 >= 0 }) ?? true else {
            throw RelayError(.invalidRelayConfiguration, "maxReconnectAttempts is negative")
        }
        guard maxMessageBytes > 0, maxChunksPerMessage > 0, receiveBufferMessages > 0, maxPartialMessages > 0,
              reassemblyTimeoutMillis > 0 else {
            throw RelayError(.invalidRelayConfiguration, "a bound is not positive")
        }
        guard maxChunkBytes.map({ $0 > RelayChunk.headerBytes }) ?? true else {
            throw RelayError(.invalidRelayConfiguration, "maxChunkBytes leaves no room for data")
        }
        guard reassemblyBudgetBytes >= maxMessageBytes else {
            throw RelayError(.invalidRelayConfiguration, "reassemblyBudgetBytes is below maxMessageBytes")
        }
        if let tls { try tls.validate() }
        try credentials.validate()
        return self
    }

    public var description: String {
        "NatsRelayOptions(servers: \(servers.count), credentials: \(credentials), tls: \(tls == nil ? "off" : "on"))"
    }
}
