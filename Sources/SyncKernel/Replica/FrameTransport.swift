/// Where a `ReplicaHost` sends frames: the sealed relay in production, anything in tests.
///
/// ## Implementation requirements
/// - `send` delivers to the named sibling or drops the frame; it never stores frames for later
///   (the relay has no mailbox, and the loop's retries assume none).
/// - It does not call back into the host synchronously.
public protocol FrameTransport: Sendable {
    /// Sends one `sync_delta` frame to `device`.
    func send(_ frame: [UInt8], kind: String, to device: DeviceID) async
}
