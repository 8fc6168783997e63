/// What a replica asks its host to do.
public enum ReplicaAction: Sendable, Hashable {
    /// Deliver `frame` (a `sync_delta` encoding of `kind`) to `device`.
    case send(to: DeviceID, kind: String, frame: [UInt8])
    /// Report `event`.
    case event(ReplicaEvent)
}
