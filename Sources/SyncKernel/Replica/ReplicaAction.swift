/// What a replica asks its host to do.
public enum ReplicaAction: Sendable, Hashable {
    /// Deliver `frame` (a `sync_delta` encoding of `kind`, about `namespace` when it concerns one) to `device`.
    case send(to: DeviceID, kind: String, namespace: String?, frame: [UInt8])
    /// Report `event`.
    case event(ReplicaEvent)
}
