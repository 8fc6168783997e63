/// An error of one module: a stable code from the module's own closed list and a detail free of
/// user data. `SyncKernelError` is the kernel's; `RelayError`, `JoinError`, `SyncDeviceError` and
/// the others are their modules'.
///
/// Invariants every conformer keeps: `code` is one of its `Code.all`, and code strings are unique
/// across every module's list (the codes moved out of the kernel kept their strings, so a host
/// that persisted one still finds it); `detail` is fixed text from source code, never user data;
/// `description` is the type's name, the code and the detail, nothing else.
public protocol StableError: Error, Sendable, CustomStringConvertible {
    /// The closed list of reasons this error type carries.
    associatedtype Code: StableCode
    /// The stable reason.
    var code: Code { get }
    /// A fixed, user-data-free detail (empty when the code says it all).
    var detail: String { get }
}

extension StableError {
    /// The type's name, the code and the detail, for example
    /// "RelayError(SK604 relayNotConnected: publishing)".
    public var description: String {
        detail.isEmpty ? "\(Self.self)(\(code))" : "\(Self.self)(\(code): \(detail))"
    }
}
