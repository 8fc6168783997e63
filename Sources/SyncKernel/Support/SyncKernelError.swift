/// The one error type of the SyncKernel module.
///
/// Invariant: `code` is stable across releases (hosts may persist or match on it), and
/// `description` never contains user data: only the code, a fixed explanation and, where it
/// helps, a namespace or field name declared in source code.
public struct SyncKernelError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable machine-readable reasons, grouped by the layer that raises them.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // Encoding (1xx)
        case truncatedInput = "SK101"
        case nonCanonicalEncoding = "SK102"
        case unsupportedEncoding = "SK103"
        case limitExceeded = "SK104"
        case trailingBytes = "SK105"
        case invalidText = "SK106"
        case unexpectedType = "SK107"
        case missingField = "SK108"
        case duplicateMapKey = "SK109"
        // Digest and frames (2xx)
        case malformedDigest = "SK201"
        case schemaMismatch = "SK202"
        case unsupportedLayout = "SK203"
        case unknownFrameKind = "SK204"
        case unsupportedPayload = "SK205"
        case foreignAccount = "SK206"
        case unknownNamespace = "SK207"
        case unknownSibling = "SK208"
        case malformedFrame = "SK209"
        // Merge and clock (3xx)
        case deviceIdentityNotConfigured = "SK301"
        case deviceIdentityAlreadyConfigured = "SK302"
        case invalidDeviceIdentity = "SK303"
        // Namespaces (4xx)
        case duplicateNamespace = "SK401"
        case invalidNamespaceName = "SK403"
        case operationNotSupportedByRule = "SK404"
        case namespaceRefused = "SK405"
        case invalidDeclaration = "SK406"
        case rowRejected = "SK407"
        // Store (5xx)
        case sqlite = "SK501"
        case corruptBookkeeping = "SK502"
        case storeClosed = "SK503"
        case rowFormatChanged = "SK504"
    }

    /// The stable reason.
    public let code: Code
    /// A fixed, user-data-free detail (for example a namespace or field name from source).
    public let detail: String

    /// Creates an error with a stable code and a detail that must not contain user data.
    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public var description: String {
        detail.isEmpty ? "SyncKernelError(\(code.rawValue) \(code))"
            : "SyncKernelError(\(code.rawValue) \(code): \(detail))"
    }
}
