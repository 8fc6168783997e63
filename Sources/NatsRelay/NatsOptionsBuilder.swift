import SyncRelay
import CNats
#if canImport(Glibc)
import Glibc
#endif
import SyncKernel

/// Turns `NatsRelayOptions` into the C client's options, installs the connection callbacks, and
/// maps the client's statuses to `RelayError`s.
///
/// Invariants: every setting of `NatsRelayOptions` reaches the client or the call throws
/// `invalidRelayConfiguration`; error details name the step and the client's status text, never
/// a URL, credential or subject.
enum NatsOptionsBuilder {
    /// Applies `options` to `natsOptions`.
    static func apply(_ options: NatsRelayOptions, to natsOptions: OpaquePointer) throws(RelayError) {
        try check(withCStrings(options.servers) { natsOptions_SetServers(natsOptions, $0, Int32(options.servers.count)) },
                  "servers")
        if let name = options.connectionName { try check(natsOptions_SetName(natsOptions, name), "connection name") }
        switch options.credentials {
        case .none:
            break
        case .userPassword(let user, let password):
            try check(natsOptions_SetUserInfo(natsOptions, user, password), "user and password")
        case .token(let token):
            try check(natsOptions_SetToken(natsOptions, token), "token")
        case .credentialsFile(let path):
            try check(natsOptions_SetUserCredentialsFromFiles(natsOptions, path, nil), "credentials file")
        }
        if let tls = options.tls {
            try check(natsOptions_SetSecure(natsOptions, true), "TLS")
            if let file = tls.trustedCertificatesFile {
                try check(natsOptions_LoadCATrustedCertificates(natsOptions, file), "trusted certificates")
            }
            if let chain = tls.certificateChainFile, let key = tls.privateKeyFile {
                try check(natsOptions_LoadCertificatesChain(natsOptions, chain, key), "client certificate")
            }
            if let host = tls.expectedHostname { try check(natsOptions_SetExpectedHostname(natsOptions, host), "host name") }
        }
        try check(natsOptions_SetTimeout(natsOptions, options.connectTimeoutMillis), "connect timeout")
        try check(natsOptions_SetAllowReconnect(natsOptions, true), "reconnect")
        try check(natsOptions_SetMaxReconnect(natsOptions, Int32(clamping: options.maxReconnectAttempts ?? -1)),
                  "reconnect attempts")
        try check(natsOptions_SetReconnectWait(natsOptions, options.reconnectWaitMillis), "reconnect wait")
        try check(natsOptions_SetReconnectJitter(natsOptions, options.reconnectJitterMillis, options.reconnectJitterMillis),
                  "reconnect jitter")
        try check(natsOptions_SetPingInterval(natsOptions, options.pingIntervalMillis), "ping interval")
        try check(natsOptions_SetMaxPingsOut(natsOptions, Int32(clamping: options.maxPingsOut)), "pings out")
    }

    /// Installs the connection callbacks, all with `context` (a retained `ConnectionSink`): the
    /// closed callback releases it.
    static func installCallbacks(on natsOptions: OpaquePointer, context: UnsafeMutableRawPointer) throws(RelayError) {
        try check(natsOptions_SetRetryOnFailedConnect(natsOptions, true, { connection, context in
            ConnectionSink.borrowed(context)?.reportUp(.connected, on: connection)
        }, context), "connect retry")
        try check(natsOptions_SetDisconnectedCB(natsOptions, { _, context in
            ConnectionSink.borrowed(context)?.report(.disconnected)
        }, context), "disconnected callback")
        try check(natsOptions_SetReconnectedCB(natsOptions, { connection, context in
            ConnectionSink.borrowed(context)?.reportUp(.reconnected, on: connection)
        }, context), "reconnected callback")
        try check(natsOptions_SetClosedCB(natsOptions, { _, context in
            guard let context else { return }
            let sink = Unmanaged<ConnectionSink>.fromOpaque(context)
            sink.takeUnretainedValue().report(.closed)
            sink.release()
        }, context), "closed callback")
    }

    /// The error for a failed client call `step`: `relayNotConnected`, `relayClosed` or
    /// `relayPayloadTooLarge` where the status says so, otherwise `relayPublishFailed` while
    /// publishing and `relayConnectionFailed` for any other step.
    static func error(for status: natsStatus, while step: String) -> RelayError {
        let text = natsStatus_GetText(status).map { String(cString: $0) } ?? "unknown status"
        switch status {
        case NATS_CONNECTION_DISCONNECTED, NATS_NOT_YET_CONNECTED:
            return RelayError(.relayNotConnected, "\(step): \(text)")
        case NATS_CONNECTION_CLOSED:
            return RelayError(.relayClosed, "\(step): \(text)")
        case NATS_MAX_PAYLOAD:
            return RelayError(.relayPayloadTooLarge, "\(step): \(text)")
        default:
            return RelayError(step == "publishing" ? .relayPublishFailed : .relayConnectionFailed, "\(step): \(text)")
        }
    }

    /// Throws `invalidRelayConfiguration` naming `setting` unless the client accepted it.
    private static func check(_ status: natsStatus, _ setting: String) throws(RelayError) {
        guard status == NATS_OK else {
            let text = natsStatus_GetText(status).map { String(cString: $0) } ?? "unknown status"
            throw RelayError(.invalidRelayConfiguration, "\(setting): \(text)")
        }
    }

    /// Calls `body` with `strings` as a C array of C strings, valid only during the call.
    private static func withCStrings(_ strings: [String],
                                     _ body: (UnsafeMutablePointer<UnsafePointer<CChar>?>) -> natsStatus) -> natsStatus {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return NATS_INVALID_ARG }
            return body(base)
        }
    }
}
