import SyncKernel

/// The benchmark's device identities and account, derived from fixed labels.
///
/// Invariant: the same label always gives the same device, in every run.
enum BenchDevices {
    /// The account fingerprint every benchmark frame carries.
    static let account = SHA256.hash(domain: Array("synckernel.bench.account".utf8), Array("bench".utf8))

    /// The device named `label`.
    static func device(_ label: String) throws(SyncKernelError) -> DeviceID {
        try DeviceKeyPair(seed: SHA256.hash(domain: Array("synckernel.bench.device".utf8), Array(label.utf8))).deviceID
    }
}
