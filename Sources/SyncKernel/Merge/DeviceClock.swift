/// The local device's side of every version vector: configured once, then allowed to bump.
///
/// Invariants: the identity is set at most once (a second, different identity is refused,
/// because it would split one device into two dimensions); before it is set, `bump` refuses,
/// so no vector is ever recorded under a throwaway name. A bump counts under the device's
/// current epoch (`DeviceEpoch.dimension`); the epoch only ever moves to one of the same device.
package struct DeviceClock: Sendable {
    /// The configured epoch, if any.
    package private(set) var epoch: DeviceEpoch?

    /// An unconfigured clock.
    package init() {}

    /// The configured identity, if any.
    package var device: DeviceID? { epoch?.device }

    /// The dimension local writes count under, if configured.
    package var dimension: DeviceID? { epoch?.dimension }

    /// Refuses `device` when another identity is configured; says whether one is configured.
    package func accepts(_ device: DeviceID) throws(SyncKernelError) -> Bool {
        guard let current = self.device else { return false }
        guard current == device else { throw SyncKernelError(.deviceIdentityAlreadyConfigured) }
        return true
    }

    /// Pins the clock to `device` at epoch 0. Configuring the same identity again is a no-op.
    package mutating func configure(_ device: DeviceID) throws(SyncKernelError) {
        if try accepts(device) { return }
        epoch = .initial(device)
    }

    /// Pins the clock to `epoch` (the first configuration, or a later epoch of the same device).
    package mutating func enter(_ epoch: DeviceEpoch) throws(SyncKernelError) {
        _ = try accepts(epoch.device)
        self.epoch = epoch
    }

    /// Returns `vector` with the local device's counter advanced by one.
    ///
    /// Throws `deviceIdentityNotConfigured` before `configure`, and `counterOutOfRange` when the
    /// device's counter in `vector` is already at `VersionVector.maxCounter` (never a trap): the
    /// caller's write then fails and its transaction rolls back.
    package func bump(_ vector: VersionVector) throws(SyncKernelError) -> VersionVector {
        guard let dimension else { throw SyncKernelError(.deviceIdentityNotConfigured) }
        var bumped = vector
        try bumped.bump(dimension)
        return bumped
    }
}
