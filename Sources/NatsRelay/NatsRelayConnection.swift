import SyncRelay
import CNats
import Synchronization
import SyncKernel

/// One device's connection to a NATS relay (a server or a cluster) over core NATS: it listens on
/// the device's inbox subject and publishes opaque payloads to other subjects.
///
/// Core NATS stores nothing and delivers only to current subscribers, which is the relay the
/// kernel expects: a payload for a device that is offline is lost, and the digest loop makes up
/// for it when the device comes back and announces itself (`events`).
///
/// Invariants:
/// - Every payload `publish` accepts goes out whole, cut into chunks no larger than the server
///   allows, back to back on this connection; `messages` yields each payload received on the
///   inbox once, joined, in arrival order. The payload bytes are never read or changed.
/// - Nothing is kept for later: `publish` while not connected throws `relayNotConnected`.
/// - The client reconnects by itself, for ever unless `maxReconnectAttempts` says otherwise, and
///   renews the inbox subscription; `events` reports each state change (`RelayEvent`). A
///   connection the servers refuse for good (the same authorisation error twice, a protocol
///   error, the attempts run out) is closed by the client: `.closed`, whenever it happens, even
///   during `init`.
/// - The C handles live behind one lock and are released by `close()` (or when the connection is
///   released); the callback contexts outlive every callback the library can still make.
public final class NatsRelayConnection: Sendable {
    /// The subject this connection listens on.
    public let inbox: String
    /// The options in force.
    public let options: NatsRelayOptions
    /// Whole payloads received on the inbox; the stream ends when the connection is closed.
    /// One consumer reads it (each payload goes to one iterator).
    public let messages: AsyncStream<[UInt8]>
    /// Connection state changes; the stream ends after `.closed`. One consumer reads it: the one
    /// that announces the device on `.connected` and `.reconnected`.
    public let events: AsyncStream<RelayEvent>

    private struct Handles {
        var connection: OpaquePointer?
        var subscription: OpaquePointer?
    }

    private let handles: Mutex<Handles>
    private let tally: RelayTally

    /// Connects to `options.servers` and subscribes to `inbox`.
    ///
    /// When no server answers yet, this returns at once and the client keeps trying (`.connected`
    /// comes later); when one answers, this returns after the subscription reached it, which may
    /// take up to `connectTimeoutMillis` per server tried. Throws `invalidRelayConfiguration` or
    /// `invalidSubject` for options or an inbox it refuses, `relayConnectionFailed` when the
    /// client library cannot set up the connection. `screen`, when given, runs on every whole
    /// payload on the client library's thread, in arrival order, before it is queued for
    /// `messages`: only a payload it answers `.queue` for is queued; one it consumes (checked and
    /// handed on, or refused and counted, by the caller) never costs a wakeup of a consumer of
    /// `messages`.
    public init(options: NatsRelayOptions, inbox: String,
                screen: (@Sendable ([UInt8]) -> InboxDisposition)? = nil) throws(RelayError) {
        let options = try options.validated()
        try RelaySubject.validate(inbox)
        self.options = options
        self.inbox = inbox
        let tally = RelayTally()
        self.tally = tally
        let (events, eventContinuation) = AsyncStream.makeStream(of: RelayEvent.self)
        let (messages, messageContinuation) = AsyncStream.makeStream(
            of: [UInt8].self, bufferingPolicy: .bufferingOldest(options.receiveBufferMessages))
        self.events = events
        self.messages = messages
        let connectionSink = ConnectionSink(continuation: eventContinuation, tally: tally,
                                            flushTimeoutMillis: options.connectTimeoutMillis)
        let inboxSink = InboxSink(continuation: messageContinuation, tally: tally, limits: ChunkReassembler.Limits(options),
                                  screen: screen)

        let (connection, connected) = try Self.connect(options, sink: connectionSink)
        let subscription: OpaquePointer?
        do throws(RelayError) {
            subscription = try Self.subscribe(connection, to: inbox, sink: inboxSink)
        } catch {
            guard error.code == .relayClosed else {
                // Destroying the connection posts the closed callback, which releases the context.
                natsConnection_Destroy(connection)
                throw error
            }
            // The client closed the connection already (a server refused it for good): it is
            // returned closed, as it would be had the refusal come a moment later.
            inboxSink.finish()
            subscription = nil
        }
        if connected {
            // The subscription reaches the server before anyone is told the inbox listens.
            _ = natsConnection_FlushTimeout(connection, options.connectTimeoutMillis)
        }
        handles = Mutex(Handles(connection: connection, subscription: subscription))
        if connected { connectionSink.report(.connected) }
    }

    deinit {
        close()
    }

    /// Creates the client's connection with `sink` behind its callbacks: the connection and
    /// whether it reached a server already (otherwise the client keeps trying in the background).
    private static func connect(_ options: NatsRelayOptions,
                                sink: ConnectionSink) throws(RelayError) -> (OpaquePointer, connected: Bool) {
        var natsOptions: OpaquePointer?
        guard natsOptions_Create(&natsOptions) == NATS_OK, let natsOptions else {
            throw RelayError(.relayConnectionFailed, "the client could not create its options")
        }
        defer { natsOptions_Destroy(natsOptions) }
        try NatsOptionsBuilder.apply(options, to: natsOptions)
        let context = Unmanaged.passRetained(sink).toOpaque()
        do throws(RelayError) {
            try NatsOptionsBuilder.installCallbacks(on: natsOptions, context: context)
        } catch {
            Unmanaged<ConnectionSink>.fromOpaque(context).release()
            throw error
        }
        var connection: OpaquePointer?
        let status = natsConnection_Connect(&connection, natsOptions)
        guard status == NATS_OK || status == NATS_NOT_YET_CONNECTED, let connection else {
            // No connection exists, so no callback will run: the context is ours to release.
            Unmanaged<ConnectionSink>.fromOpaque(context).release()
            throw NatsOptionsBuilder.error(for: status, while: "connecting")
        }
        return (connection, status == NATS_OK)
    }

    /// Subscribes `sink` to `subject` on `connection`, handing the library a retained context
    /// that the subscription's completion callback releases.
    private static func subscribe(_ connection: OpaquePointer, to subject: String,
                                  sink: InboxSink) throws(RelayError) -> OpaquePointer {
        let context = Unmanaged.passRetained(sink).toOpaque()
        var subscription: OpaquePointer?
        let status = natsConnection_Subscribe(&subscription, connection, subject, { _, _, message, context in
            guard let message else { return }
            let length = Int(natsMsg_GetDataLength(message))
            let bytes: [UInt8] = if length > 0, let data = natsMsg_GetData(message) {
                Array(UnsafeRawBufferPointer(start: data, count: length))
            } else {
                []
            }
            natsMsg_Destroy(message)
            guard let context else { return }
            Unmanaged<InboxSink>.fromOpaque(context).takeUnretainedValue().receive(bytes)
        }, context)
        guard status == NATS_OK, let subscription else {
            Unmanaged<InboxSink>.fromOpaque(context).release()
            throw NatsOptionsBuilder.error(for: status, while: "subscribing")
        }
        let completion = natsSubscription_SetOnCompleteCB(subscription, { context in
            guard let context else { return }
            let sink = Unmanaged<InboxSink>.fromOpaque(context)
            sink.takeUnretainedValue().finish()
            sink.release()
        }, context)
        // Setting the callback fails only for a subscription the library already closed: nothing
        // more arrives, so the stream ends now; the context stays retained, since the handler
        // may still be running.
        if completion != NATS_OK {
            sink.finish()
        }
        return subscription
    }

    /// The connection's state now.
    public var status: RelayStatus {
        handles.withLock { handles in
            guard let connection = handles.connection else { return .closed }
            return switch natsConnection_Status(connection) {
            case NATS_CONN_STATUS_CONNECTED: .connected
            case NATS_CONN_STATUS_CLOSED: .closed
            case NATS_CONN_STATUS_CONNECTING: .connecting
            default: .reconnecting
            }
        }
    }

    /// The URL of the server the connection is on now, nil while it is on none. Package-only: a
    /// URL may carry credentials, so it is for tests (which node a device failed over to), not
    /// for logs.
    package var connectedServerURL: String? {
        handles.withLock { handles in
            guard let connection = handles.connection else { return nil }
            var buffer = [CChar](repeating: 0, count: 1_024)
            guard natsConnection_GetConnectedUrl(connection, &buffer, buffer.count) == NATS_OK, buffer[0] != 0 else {
                return nil
            }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// What the connection sent, received and dropped so far; `slowConsumer` is the number of
    /// messages the client library dropped from the inbox subscription because it fell behind
    /// (as the library counts them, read now; the last count read stays after `close()`).
    public var counters: RelayCounters {
        handles.withLock { handles in
            guard let subscription = handles.subscription else { return }
            var dropped: Int64 = 0
            guard natsSubscription_GetDropped(subscription, &dropped) == NATS_OK, dropped > 0 else { return }
            tally.update { counters in
                counters.drops[.slowConsumer] = max(counters.dropped(.slowConsumer), Int(clamping: dropped))
            }
        }
        return tally.snapshot
    }

    /// The capability a host announces to its siblings (`Replica`'s host capabilities) to say
    /// its connection reads the short form (`RelayChunk.wholeFormat`): a sibling that announced it
    /// is sent `publish(_:to:shortForm:)` with `shortForm` true.
    public static let shortFormCapability = "relay-short1"

    /// Publishes `payload` to `subject`, in as many chunks as the server's limit needs; with
    /// `shortForm` (the recipient announced `shortFormCapability`), a payload that fits one
    /// message goes with a one-byte header instead of seventeen.
    ///
    /// Throws `invalidSubject`; `relayPayloadTooLarge` beyond `maxMessageBytes`; `relayNotConnected`
    /// while the connection is not connected (the payload is dropped, not queued);
    /// `relayPublishFailed` when the client refuses a chunk; `relayClosed` after `close()` or once
    /// the client closed the connection for good.
    /// Returns once the chunks are in the client's outgoing buffer, not when they arrive.
    public func publish(_ payload: [UInt8], to subject: String, shortForm: Bool = false) throws(RelayError) {
        try RelaySubject.validate(subject)
        guard payload.count <= options.maxMessageBytes else {
            throw RelayError(.relayPayloadTooLarge, "beyond maxMessageBytes")
        }
        let messageID = UInt64.random(in: .min ... .max)
        try handles.withLock { handles throws(RelayError) in
            guard let connection = handles.connection else { throw RelayError(.relayClosed) }
            let state = natsConnection_Status(connection)
            guard state != NATS_CONN_STATUS_CLOSED else { throw RelayError(.relayClosed) }
            guard state == NATS_CONN_STATUS_CONNECTED else {
                tally.drop([.notConnected])
                throw RelayError(.relayNotConnected)
            }
            let serverLimit = Int(natsConnection_GetMaxPayload(connection))
            let chunkBytes = min(serverLimit, options.maxChunkBytes ?? serverLimit)
            let chunks = try RelayChunk.split(payload, messageID: messageID, chunkBytes: chunkBytes,
                                              maxChunks: options.maxChunksPerMessage, short: shortForm)
            for chunk in chunks {
                let status = chunk.withUnsafeBytes { natsConnection_Publish(connection, subject, $0.baseAddress, Int32($0.count)) }
                guard status == NATS_OK else {
                    tally.drop([status == NATS_CONNECTION_DISCONNECTED ? .notConnected : .publishFailed])
                    throw NatsOptionsBuilder.error(for: status, while: "publishing")
                }
            }
            tally.update { counters in
                counters.published += 1
                counters.publishedChunks += chunks.count
                counters.publishedBytes += payload.count
                if chunks.first?.first == RelayChunk.wholeFormat { counters.publishedShort += 1 }
            }
        }
    }

    /// Waits until the server has processed everything this connection sent so far (a ping and
    /// its pong), or `timeoutMillis` passed. Blocks the calling thread.
    public func flush(timeoutMillis: Int64 = 2_000) throws(RelayError) {
        try handles.withLock { handles throws(RelayError) in
            guard let connection = handles.connection else { throw RelayError(.relayClosed) }
            let status = natsConnection_FlushTimeout(connection, max(1, timeoutMillis))
            guard status == NATS_OK else { throw NatsOptionsBuilder.error(for: status, while: "flushing") }
        }
    }

    /// Closes the connection: no more publishes, the subscription ends, `messages` and `events`
    /// finish (after `.closed`). Idempotent.
    public func close() {
        handles.withLock { handles in
            guard let connection = handles.connection else { return }
            natsConnection_Close(connection)
            if let subscription = handles.subscription { natsSubscription_Destroy(subscription) }
            natsConnection_Destroy(connection)
            handles = Handles()
        }
    }
}
