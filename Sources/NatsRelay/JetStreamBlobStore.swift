import CNats
#if canImport(Glibc)
import Glibc
#endif
import SnapshotTransfer
import Synchronization
import SyncKernel

/// The blob store on the relay's own server: a NATS JetStream stream (file storage, MaxAge the
/// time to live) through the C client, which has no object store: each blob is cut into chunks
/// under the server's payload limit, one message per chunk, and a hashed manifest
/// (`BlobManifest`) published last.
///
/// Subjects: chunk i of blob `<id>` is `<prefix>.<id>.c.<i>`, its manifest `<prefix>.<id>.m` (the
/// id in hex). Every message carries the message id `<id>.c.<i>` or `<id>.m` (`Nats-Msg-Id`), so a
/// publish retried after a lost acknowledgement is dropped by the server as a duplicate.
///
/// Invariants:
/// - `put` publishes every chunk and waits for each acknowledgement before publishing the
///   manifest: a blob with a manifest is whole; a put that fails purges whatever it published.
/// - `open` needs only the id (no account, no credentials beyond the connection's): it reads the
///   manifest, checks its own hash, and the reader checks each chunk's length and SHA-256 against
///   it (`blobStoreFailed` otherwise); a blob without a manifest, or whose chunks the server
///   expired, is `blobNotFound`.
/// - Blobs expire on the server (`timeToLive`, the stream's MaxAge, counted per message from when
///   it was stored); `removeExpired` removes nothing itself.
/// - The C handles live behind one lock, held for each client call; `close()` releases them.
public final class JetStreamBlobStore: BlobStore {
    /// The store's settings.
    public let options: JetStreamBlobOptions
    /// Bytes of blob per chunk message.
    public let chunkBytes: Int

    private struct Handles {
        var connection: OpaquePointer?
        var context: OpaquePointer?
    }

    private let handles: Mutex<Handles>

    /// Connects to the relay's servers (`relay`: servers, credentials, TLS, timeouts) and makes
    /// sure the stream exists with these settings (created, or updated to them). Throws a
    /// `RelayError` (`invalidRelayConfiguration`) for options it refuses, a `SnapshotTransferError`
    /// (`blobStoreFailed`) when no server answers or JetStream refuses the stream.
    public init(relay: NatsRelayOptions, options: JetStreamBlobOptions = JetStreamBlobOptions()) throws {
        let relay = try relay.validated()
        self.options = try options.validated()
        let (connection, context, maxPayload) = try JetStreamBlobStore.connect(relay, waitMillis: self.options.requestTimeoutMillis)
        let serverLimit = maxPayload - 4_096
        chunkBytes = min(options.chunkBytes ?? serverLimit, serverLimit)
        handles = Mutex(Handles(connection: connection, context: context))
        guard chunkBytes >= 1_024 else {
            close()
            throw SnapshotTransferError(.blobStoreFailed, "the server's payload limit leaves no room for chunks")
        }
        do {
            try ensureStream()
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    /// Connects to `relay`'s servers and opens a JetStream context on the connection; returns both
    /// and the server's payload limit.
    private static func connect(_ relay: NatsRelayOptions,
                                waitMillis: Int64) throws -> (OpaquePointer, OpaquePointer, Int) {
        var natsOptions: OpaquePointer?
        guard natsOptions_Create(&natsOptions) == NATS_OK, let natsOptions else {
            throw SnapshotTransferError(.blobStoreFailed, "the client could not create its options")
        }
        defer { natsOptions_Destroy(natsOptions) }
        try NatsOptionsBuilder.apply(relay, to: natsOptions)
        var connection: OpaquePointer?
        let status = natsConnection_Connect(&connection, natsOptions)
        guard status == NATS_OK, let connection else { throw failure(status, "connecting") }
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = waitMillis
        var context: OpaquePointer?
        let opened = natsConnection_JetStream(&context, connection, &jsOptions)
        guard opened == NATS_OK, let context else {
            natsConnection_Destroy(connection)
            throw failure(opened, "opening JetStream")
        }
        return (connection, context, Int(natsConnection_GetMaxPayload(connection)))
    }

    /// How long the server keeps a blob's messages (the stream's MaxAge).
    public var timeToLive: Duration { options.timeToLive }

    /// Closes the connection; every later call throws `blobStoreFailed`. Idempotent.
    public func close() {
        handles.withLock { handles in
            if let context = handles.context { jsCtx_Destroy(context) }
            if let connection = handles.connection {
                natsConnection_Close(connection)
                natsConnection_Destroy(connection)
            }
            handles = Handles()
        }
    }

    /// The error of a call made after `close()`.
    private static let closed = SnapshotTransferError(.blobStoreFailed, "the blob store was closed")

    /// Creates the stream, or updates an existing one to these settings.
    private func ensureStream() throws {
        let (status, code) = try handles.withLock { handles throws -> (natsStatus, jsErrCode) in
            guard let context = handles.context else { throw JetStreamBlobStore.closed }
            let name = strdup(options.streamName)
            let subject = strdup(options.subjectPrefix + ".>")
            defer {
                free(name)
                free(subject)
            }
            var subjects: [UnsafePointer<CChar>?] = [subject.map { UnsafePointer($0) }]
            var config = jsStreamConfig()
            jsStreamConfig_Init(&config)
            config.Name = name.map { UnsafePointer($0) }
            config.Storage = js_FileStorage
            config.Retention = js_LimitsPolicy
            config.Discard = js_DiscardOld
            config.MaxAge = JetStreamBlobStore.nanoseconds(options.timeToLive)
            config.Duplicates = JetStreamBlobStore.nanoseconds(options.duplicateWindow)
            config.Replicas = 1
            return subjects.withUnsafeMutableBufferPointer { buffer -> (natsStatus, jsErrCode) in
                config.Subjects = buffer.baseAddress
                config.SubjectsLen = Int32(buffer.count)
                var info: UnsafeMutablePointer<jsStreamInfo>?
                var code = jsErrCode(0)
                var status = js_AddStream(&info, context, &config, nil, &code)
                if status != NATS_OK, code == JSStreamNameExistErr {
                    code = jsErrCode(0)
                    status = js_UpdateStream(&info, context, &config, nil, &code)
                }
                if let info { jsStreamInfo_Destroy(info) }
                return (status, code)
            }
        }
        guard status == NATS_OK else { throw JetStreamBlobStore.failure(status, "creating the stream", code: code) }
    }

    /// The stream's MaxAge, storage, duplicate window and message count as the server holds them
    /// (for tests and diagnostics).
    package func streamSettings() throws -> (maxAge: Duration, fileStorage: Bool, duplicates: Duration,
                                                              messages: UInt64) {
        let (status, found) = try handles.withLock { handles throws -> (natsStatus, (Int64, Bool, Int64, UInt64)?) in
            guard let context = handles.context else { throw JetStreamBlobStore.closed }
            var info: UnsafeMutablePointer<jsStreamInfo>?
            var code = jsErrCode(0)
            let status = js_GetStreamInfo(&info, context, options.streamName, nil, &code)
            defer { if let info { jsStreamInfo_Destroy(info) } }
            guard status == NATS_OK, let stream = info?.pointee, let config = stream.Config?.pointee else { return (status, nil) }
            return (status, (config.MaxAge, config.Storage == js_FileStorage, config.Duplicates, stream.State.Msgs))
        }
        guard let found else { throw JetStreamBlobStore.failure(status, "reading the stream") }
        return (.nanoseconds(found.0), found.1, .nanoseconds(found.2), found.3)
    }

    // MARK: BlobStore

    /// Publishes everything `source` yields as chunks of a fresh blob, then its manifest; purges it on failure.
    public nonisolated(nonsending) func put<Source: ByteSource>(_ source: inout Source) async throws -> BlobID {
        let id = BlobID.random()
        let maxChunks = BlobManifest.maxChunks(messageBytes: chunkBytes)
        var hashes: [[UInt8]] = []
        var buffer: [UInt8] = []
        var size: Int64 = 0
        do {
            func flush(_ count: Int) throws {
                guard hashes.count < maxChunks else { throw SyncKernelError(.limitExceeded, "a blob with more chunks than a manifest holds") }
                let chunk = Array(buffer.prefix(count))
                buffer.removeFirst(count)
                try publish(chunk, subject: subject(id, chunk: hashes.count), messageID: "\(id.hex).c.\(hashes.count)")
                hashes.append(BlobManifest.digest(chunk))
            }
            while let piece = try source.next() {
                size += Int64(piece.count)
                guard size <= options.maxBlobBytes else { throw SyncKernelError(.limitExceeded, "a blob above the store's bound") }
                buffer += piece
                while buffer.count >= chunkBytes { try flush(chunkBytes) }
            }
            if !buffer.isEmpty { try flush(buffer.count) }
            guard size > 0 else { throw SnapshotTransferError(.blobStoreFailed, "an empty blob") }
            let manifest = BlobManifest(size: size, chunkBytes: chunkBytes, chunkHashes: hashes)
            try publish(manifest.encoded(), subject: manifestSubject(id), messageID: "\(id.hex).m")
        } catch {
            try? await delete(id)
            throw error
        }
        return id
    }

    /// Reads blob `id`'s manifest (`blobNotFound` without one) and returns a reader that checks each chunk against it.
    public nonisolated(nonsending) func open(_ id: BlobID) async throws -> any BlobReader {
        guard let bytes = try lastMessage(on: manifestSubject(id)) else { throw SnapshotTransferError(.blobNotFound, "no such blob") }
        let manifest = try BlobManifest(decoding: bytes)
        guard manifest.size <= options.maxBlobBytes else { throw SyncKernelError(.limitExceeded, "a stored blob above the store's bound") }
        return JetStreamBlobReader(store: self, id: id, manifest: manifest)
    }

    /// Purges every message of blob `id` from the stream.
    public nonisolated(nonsending) func delete(_ id: BlobID) async throws {
        let (status, code) = try handles.withLock { handles throws -> (natsStatus, jsErrCode) in
            guard let context = handles.context else { throw JetStreamBlobStore.closed }
            let filter = strdup(options.subjectPrefix + "." + id.hex + ".>")
            defer { free(filter) }
            var purge = jsOptions()
            jsOptions_Init(&purge)
            purge.Stream.Purge.Subject = filter.map { UnsafePointer($0) }
            var code = jsErrCode(0)
            return (js_PurgeStream(context, options.streamName, &purge, &code), code)
        }
        guard status == NATS_OK else { throw JetStreamBlobStore.failure(status, "deleting a blob", code: code) }
    }

    /// Removes nothing: the server expires messages itself (MaxAge).
    @discardableResult
    public nonisolated(nonsending) func removeExpired() async throws -> Int { 0 }

    // MARK: messages

    /// The subject of chunk `index` of blob `id`.
    func subject(_ id: BlobID, chunk index: Int) -> String {
        "\(options.subjectPrefix).\(id.hex).c.\(index)"
    }

    /// The subject of blob `id`'s manifest.
    func manifestSubject(_ id: BlobID) -> String {
        "\(options.subjectPrefix).\(id.hex).m"
    }

    /// Publishes `payload` to `subject` with `messageID`, waiting for the stream's
    /// acknowledgement, retrying up to `publishAttempts` times with the same id.
    func publish(_ payload: [UInt8], subject: String, messageID: String) throws {
        var last: (natsStatus, jsErrCode) = (NATS_OK, jsErrCode(0))
        for _ in 0..<options.publishAttempts {
            last = try handles.withLock { handles throws -> (natsStatus, jsErrCode) in
                guard let context = handles.context else { throw JetStreamBlobStore.closed }
                return messageID.withCString { id in
                    options.streamName.withCString { stream in
                        var publish = jsPubOptions()
                        jsPubOptions_Init(&publish)
                        publish.MsgId = id
                        publish.ExpectStream = stream
                        publish.MaxWait = options.requestTimeoutMillis
                        var ack: UnsafeMutablePointer<jsPubAck>?
                        var code = jsErrCode(0)
                        let status = payload.withUnsafeBytes { bytes in
                            js_Publish(&ack, context, subject, bytes.baseAddress, Int32(bytes.count), &publish, &code)
                        }
                        if let ack { jsPubAck_Destroy(ack) }
                        return (status, code)
                    }
                }
            }
            if last.0 == NATS_OK { return }
        }
        throw JetStreamBlobStore.failure(last.0, "storing a blob chunk", code: last.1)
    }

    /// The data of the last message on `subject` in the stream, nil when there is none.
    func lastMessage(on subject: String) throws -> [UInt8]? {
        let (status, code, bytes) = try handles.withLock { handles throws -> (natsStatus, jsErrCode, [UInt8]?) in
            guard let context = handles.context else { throw JetStreamBlobStore.closed }
            var message: OpaquePointer?
            var code = jsErrCode(0)
            let status = js_GetLastMsg(&message, context, options.streamName, subject, nil, &code)
            guard status == NATS_OK, let message else { return (status, code, nil) }
            defer { natsMsg_Destroy(message) }
            let length = Int(natsMsg_GetDataLength(message))
            guard length > 0, let data = natsMsg_GetData(message) else { return (status, code, []) }
            return (status, code, Array(UnsafeRawBufferPointer(start: data, count: length)))
        }
        if status == NATS_OK { return bytes }
        if status == NATS_NOT_FOUND || code == JSNoMessageFoundErr { return nil }
        throw JetStreamBlobStore.failure(status, "reading a blob", code: code)
    }

    /// The error for a failed client call.
    static func failure(_ status: natsStatus, _ step: String, code: jsErrCode = jsErrCode(0)) -> SnapshotTransferError {
        let text = natsStatus_GetText(status).map { String(cString: $0) } ?? "unknown status"
        return SnapshotTransferError(.blobStoreFailed, "\(step): \(text)" + (code.rawValue == 0 ? "" : " (JetStream error \(code.rawValue))"))
    }

    /// `duration` in nanoseconds, saturating.
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let parts = duration.components
        let (seconds, overflow) = parts.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : seconds &+ parts.attoseconds / 1_000_000_000
    }
}
