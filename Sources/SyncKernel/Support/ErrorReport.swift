/// What an event or a log line says of an error of any module: the error type's name, its stable
/// code and its fixed detail, as plain values an event can hold and compare.
///
/// Invariant: built from a `StableError`, it holds exactly that error's type name, code string,
/// code name and detail (never user data, since none of those holds any); built from another
/// error it holds the type's name alone, with code "unknown".
public struct ErrorReport: Sendable, Hashable, CustomStringConvertible {
    /// The error type's name, for example "SyncDeviceError".
    public let type: String
    /// The stable code string, for example "SK704", or "unknown" for an error without one.
    public let code: String
    /// The code's symbolic name, for example "snapshotTimedOut" (empty without a code).
    public let name: String
    /// The error's fixed detail.
    public let detail: String

    /// The report of `error`.
    public init<E: StableError>(_ error: E) {
        self.init(type: "\(E.self)", code: error.code.rawValue, name: error.code.name, detail: error.detail)
    }

    /// The report of any error: its own when it is a `StableError`, its type's name otherwise.
    public init(_ error: any Error) {
        if let stable = error as? any StableError {
            self = Self.report(of: stable)
        } else {
            self.init(type: "\(Swift.type(of: error))", code: "unknown", name: "", detail: "")
        }
    }

    /// The report of a `StableError` of a type known only at run time (opened here, so the
    /// generic initialiser runs, not the one taking any error).
    private static func report<E: StableError>(of error: E) -> ErrorReport {
        ErrorReport(type: "\(E.self)", code: error.code.rawValue, name: error.code.name, detail: error.detail)
    }

    private init(type: String, code: String, name: String, detail: String) {
        self.type = type
        self.code = code
        self.name = name
        self.detail = detail
    }

    /// Whether the error carried `code`.
    public func carries(_ code: some StableCode) -> Bool {
        self.code == code.rawValue
    }

    /// The type, the code and the name, and the detail, for example
    /// "SyncDeviceError(SK704 snapshotTimedOut: no sibling answered)".
    public var description: String {
        let reason = name.isEmpty ? code : "\(code) \(name)"
        return detail.isEmpty ? "\(type)(\(reason))" : "\(type)(\(reason): \(detail))"
    }
}
