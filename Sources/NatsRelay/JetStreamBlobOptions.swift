import SyncRelay
import SyncKernel

/// How a `JetStreamBlobStore` keeps blobs on the relay's server: the stream, its subjects, how
/// long blobs live, and the bounds on what is stored.
///
/// Invariants: the defaults are a file-stored stream `SYNCKERNEL_BLOBS` over `synckernel.blob.>`
/// keeping messages 24 hours and dropping a message whose id it saw in the last 2 minutes;
/// `validated()` refuses (`invalidRelayConfiguration`) a name or prefix the server would not take
/// and any bound out of range, before anything is connected.
public struct JetStreamBlobOptions: Sendable, Hashable {
    /// The stream's name.
    public var streamName = "SYNCKERNEL_BLOBS"
    /// The subject prefix the stream holds (`<prefix>.>`).
    public var subjectPrefix = "synckernel.blob"
    /// How long a blob's messages are kept (the stream's MaxAge).
    public var timeToLive = Duration.seconds(24 * 3_600)
    /// The window in which a message id seen before is dropped (the stream's duplicate window).
    public var duplicateWindow = Duration.seconds(120)
    /// Bytes of blob per message; nil: the server's `max_payload` less 4 KiB for headers.
    public var chunkBytes: Int?
    /// The largest blob stored.
    public var maxBlobBytes: Int64 = 64 << 30
    /// How long one JetStream request (a publish's acknowledgement, a get) may take.
    public var requestTimeoutMillis: Int64 = 10_000
    /// Publish attempts per message before a put fails (retries carry the same message id, so the
    /// server stores each message once).
    public var publishAttempts = 3

    /// The defaults.
    public init() {}

    /// The options, or `invalidRelayConfiguration` naming the first setting out of range.
    public func validated() throws(RelayError) -> JetStreamBlobOptions {
        let nameCharacters = streamName.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-")
        }
        guard !streamName.isEmpty, streamName.utf8.count <= 64, nameCharacters else {
            throw RelayError(.invalidRelayConfiguration, "a stream name is 1 to 64 letters, digits, _ or -")
        }
        do throws(RelayError) {
            try RelaySubject.validate(subjectPrefix)
        } catch {
            throw RelayError(.invalidRelayConfiguration, "a subject prefix the server would not take")
        }
        guard timeToLive >= .seconds(1), duplicateWindow >= .seconds(1), duplicateWindow <= timeToLive else {
            throw RelayError(.invalidRelayConfiguration, "a time to live or duplicate window out of range")
        }
        guard maxBlobBytes > 0, requestTimeoutMillis > 0, publishAttempts > 0, chunkBytes.map({ $0 >= 1_024 }) ?? true else {
            throw RelayError(.invalidRelayConfiguration, "a bound is not positive")
        }
        return self
    }
}
