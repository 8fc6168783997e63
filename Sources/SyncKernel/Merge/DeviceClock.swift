/// The local device's side of every version vector: configured once, then allowed to bump.
///
/// Invariants: the identity is set at most once (a second, different identity is refused,
/// because it would split one device into two dimensions); before it is set, `bump` refuses,
/// so no vector is ever recorded under a throwaway name.
package struct DeviceClock: Sendable {
    /// The configured identity, if any.
    package private(set) var device: DeviceID?

    /// An unconfigured clock.
    package init() {}

    /// Pins the clock to `device`. Configuring the same identity again is a no-op.
    package mutating func configure(_ device: DeviceID) throws(SyncKernelError) {
        if let current = self.device {
            guard current == device else { throw SyncKernelError(.deviceIdentityAlreadyConfigured) }
            return
        }
        self.device = device
    }

    /// Returns `vector` with the local device's counter advanced by one.
    ///
    /// Throws `deviceIdentityNotConfigured` before `configure`, and `counterOutOfRange` when the
    /// device's counter in `vector` is already at `VersionVector.maxCounter` (never a trap): the
    /// caller's write then fails and its transaction rolls back.
    package func bump(_ vector: VersionVector) throws(SyncKernelError) -> VersionVector {
        guard let device else { throw SyncKernelError(.deviceIdentityNotConfigured) }
        var bumped = vector
        try bumped.bump(device)
        return bumped
    }
}
