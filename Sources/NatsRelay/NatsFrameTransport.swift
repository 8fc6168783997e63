import SyncRelay
import Synchronization
import SyncKernel

/// A `FrameTransport` over a NATS relay for a host that sends raw frames: each device listens on
/// the subject named by its device id, and each payload is the sender's device id (32 bytes)
/// followed by the frame.
///
/// This adapter is for hosts that trust their relay (tests, a private server): the relay reads
/// who sends to whom and every frame. A host that must hide them from the relay publishes sealed
/// envelopes on a `NatsRelayConnection` instead; the connection never reads what it carries.
///
/// Invariants: `send` publishes or drops (counted by the connection), never queues; `serve`
/// hands each well-formed payload to the host once, in arrival order, and announces the device
/// on every `.connected` and `.reconnected`, so a device that was away converges through the
/// digest loop; a payload too short to name a sender is dropped and counted in `malformedPayloads`.
public final class NatsFrameTransport: FrameTransport {
    /// The default first tokens of the device subjects.
    public static let defaultSubjectPrefix = "synckernel.device"
    /// The connection, listening on this device's subject.
    public let connection: NatsRelayConnection
    /// The device this transport sends as.
    public let device: DeviceID
    /// The first tokens of every device subject.
    public let subjectPrefix: String
    private let malformed = Mutex(0)

    /// Connects as `device`, listening on its subject under `subjectPrefix`.
    public init(device: DeviceID, options: NatsRelayOptions,
                subjectPrefix: String = NatsFrameTransport.defaultSubjectPrefix) throws(RelayError) {
        self.device = device
        self.subjectPrefix = subjectPrefix
        connection = try NatsRelayConnection(options: options,
                                             inbox: try Self.subject(for: device, prefix: subjectPrefix))
    }

    /// The subject `device` listens on: the prefix and the device id in hex.
    public static func subject(for device: DeviceID, prefix: String = defaultSubjectPrefix) throws(RelayError) -> String {
        try RelaySubject.validate("\(prefix).\(device.hex)")
    }

    /// Payloads received that were too short to name their sender.
    public var malformedPayloads: Int { malformed.withLock { $0 } }

    /// Publishes this device's id and `frame` to `recipient`'s subject, or drops them (the
    /// connection counts why) when the connection is away or refuses them.
    public func send(_ frame: [UInt8], kind: String, to recipient: DeviceID) async {
        do throws(RelayError) {
            try connection.publish(device.publicKey + frame, to: try Self.subject(for: recipient, prefix: subjectPrefix))
        } catch {
            // Dropped: the connection counted why (not connected, refused). The digest loop's
            // re-advertisements make up for it; nothing is kept for later.
            return
        }
    }

    /// Feeds `host` until the connection closes or the task is cancelled: frames to `receive`,
    /// and an announce when the connection comes up and after every reconnect. The connection's
    /// streams have one consumer, this: `onRelayEvent` sees every connection event, after the
    /// announce it caused.
    public func serve(_ host: ReplicaHost, onRelayEvent: @escaping @Sendable (RelayEvent) -> Void = { _ in }) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await payload in self.connection.messages {
                    guard let (sender, frame) = self.split(payload) else { continue }
                    await host.receive(frame, from: sender)
                }
            }
            group.addTask {
                for await event in self.connection.events {
                    if event == .connected || event == .reconnected { await host.announce() }
                    onRelayEvent(event)
                }
            }
        }
    }

    /// The sender and the frame of a payload, or nil (counted) when it is too short.
    private func split(_ payload: [UInt8]) -> (DeviceID, [UInt8])? {
        guard payload.count > 32, let sender = try? DeviceID(publicKey: Array(payload[..<32])) else {
            malformed.withLock { $0 += 1 }
            return nil
        }
        return (sender, Array(payload[32...]))
    }
}
