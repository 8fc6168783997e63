import SyncKernel
import SyncRelay

/// NATS as the device's `Relay`: the options connect a `NatsRelayConnection` per inbox.
extension NatsRelayOptions: Relay {
    /// NATS connections read the one-message short form (`NatsRelayConnection.shortFormCapability`).
    public var shortFormCapability: String? { NatsRelayConnection.shortFormCapability }

    /// A `NatsRelayConnection` on `inbox` with these options.
    public func connect(inbox: String,
                        screen: (@Sendable ([UInt8]) -> InboxDisposition)?) throws(RelayError) -> any RelayConnection {
        try NatsRelayConnection(options: self, inbox: inbox, screen: screen)
    }
}

/// A NATS connection is a `RelayConnection`.
extension NatsRelayConnection: RelayConnection {}
