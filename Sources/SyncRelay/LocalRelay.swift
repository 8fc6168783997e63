import Synchronization
import SyncKernel

/// A relay inside one process: every connection opened on one `LocalRelay` reaches the others,
/// with the semantics a device expects of its relay (nothing stored, one delivery to each
/// connection listening when a payload is published). For tests and demos that run several
/// devices in one process without a server; `setReachable(_:)` takes it away and brings it back.
///
/// Invariants: a payload goes to the connections listening on its subject at the moment it is
/// published, each once, whole and unchanged; while the relay is unreachable every publish throws
/// `relayNotConnected` and is counted as a drop, and nothing sent before comes back later; each
/// connection's counters and events keep `RelayConnection`'s rules.
public final class LocalRelay: Relay {
    /// How many payloads a connection holds for its consumer before dropping the next.
    public let receiveBufferMessages: Int
    /// The largest payload `publish` takes (`relayPayloadTooLarge` beyond it).
    public let maxMessageBytes: Int

    private struct State {
        var reachable = true
        var listeners: [String: [ObjectIdentifier: LocalRelayConnection]] = [:]
    }

    private let state = Mutex(State())

    /// A relay holding up to `receiveBufferMessages` payloads per connection and carrying
    /// payloads of up to `maxMessageBytes`.
    public init(receiveBufferMessages: Int = 256, maxMessageBytes: Int = 20 * 1024 * 1024) {
        self.receiveBufferMessages = receiveBufferMessages
        self.maxMessageBytes = maxMessageBytes
    }

    /// Throws `invalidRelayConfiguration` for a buffer or payload bound below one.
    public func validated() throws(RelayError) -> LocalRelay {
        guard receiveBufferMessages >= 1, maxMessageBytes >= 1 else {
            throw RelayError(.invalidRelayConfiguration, "bounds below one")
        }
        return self
    }

    /// Opens a connection listening on `inbox` (`invalidSubject` for an empty one, one longer
    /// than 256 bytes or holding whitespace). It is connected at once when the relay is
    /// reachable, and reports `.connected` when it becomes so otherwise.
    public func connect(inbox: String,
                        screen: (@Sendable ([UInt8]) -> InboxDisposition)?) throws(RelayError) -> any RelayConnection {
        _ = try validated()
        try Self.validate(inbox)
        let connection = LocalRelayConnection(relay: self, inbox: inbox, buffer: receiveBufferMessages, screen: screen)
        let reachable = state.withLock { state in
            state.listeners[inbox, default: [:]][ObjectIdentifier(connection)] = connection
            return state.reachable
        }
        if reachable { connection.reach() }
        return connection
    }

    /// Makes the relay reachable or not: going away, every open connection reports
    /// `.disconnected` and publishes fail; coming back, each reports `.connected` (the first time)
    /// or `.reconnected`.
    public func setReachable(_ reachable: Bool) {
        let connections = state.withLock { state -> [LocalRelayConnection] in
            guard state.reachable != reachable else { return [] }
            state.reachable = reachable
            return state.listeners.values.flatMap(\.values)
        }
        for connection in connections {
            if reachable { connection.reach() } else { connection.lose() }
        }
    }

    /// Whether publishes go out now.
    var isReachable: Bool { state.withLock { $0.reachable } }

    /// Hands `payload` to every connection listening on `subject` now; false while unreachable.
    func route(_ payload: [UInt8], to subject: String) -> Bool {
        let targets = state.withLock { state -> [LocalRelayConnection]? in
            guard state.reachable else { return nil }
            return state.listeners[subject].map { Array($0.values) } ?? []
        }
        guard let targets else { return false }
        for connection in targets { connection.receive(payload) }
        return true
    }

    /// Stops routing to `connection`.
    func remove(_ connection: LocalRelayConnection) {
        state.withLock { state in
            state.listeners[connection.inbox]?[ObjectIdentifier(connection)] = nil
            if state.listeners[connection.inbox]?.isEmpty == true { state.listeners[connection.inbox] = nil }
        }
    }

    /// Throws `invalidSubject` unless `subject` is 1 to 256 bytes with no whitespace.
    static func validate(_ subject: String) throws(RelayError) {
        let bytes = subject.utf8
        guard !bytes.isEmpty, bytes.count <= 256, !bytes.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else {
            throw RelayError(.invalidSubject)
        }
    }
}
