/// The one error type of the SyncKernel module.
///
/// Invariant: `code` is stable across releases (hosts may persist or match on it), and
/// `description` never contains user data: only the code, a fixed explanation and, where it
/// helps, a namespace or field name declared in source code.
public struct SyncKernelError: StableError, Hashable {
    /// The stable reason.
    public let code: Code
    /// A fixed, user-data-free detail (for example a namespace or field name from source).
    public let detail: String

    /// Creates an error with a stable code and a detail that must not contain user data.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }
}
