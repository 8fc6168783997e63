/// A stable machine-readable reason: a code string (for example "SK101") and a symbolic name,
/// one of the closed list a conforming type declares as its static members.
///
/// Invariants every conformer keeps: its initialiser is private, so no other module mints a code;
/// every code is listed in `all`, in code order; code strings and names are unique and never
/// change or pass to another reason, so hosts may persist or match on them. The defaults below
/// rest on that: two codes are equal when their code strings are, `description` is the code
/// string and the name only (never data of the failure), and `init?(rawValue:)` finds a code in
/// `all`.
public protocol StableCode: Hashable, Sendable, CustomStringConvertible {
    /// The stable code string, for example "SK101".
    var rawValue: String { get }
    /// The symbolic name, for example "truncatedInput".
    var name: String { get }
    /// Every code, in code order.
    static var all: [Self] { get }
}

extension StableCode {
    /// The code string and the name, for example "SK101 truncatedInput".
    public var description: String { "\(rawValue) \(name)" }

    /// The listed code whose string is `rawValue` (one a host persisted), or nil for a string
    /// this build does not list.
    public init?(rawValue: String) {
        guard let code = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = code
    }

    /// Whether `a` and `b` are the same code: code strings are unique, so the string decides.
    public static func == (a: Self, b: Self) -> Bool {
        a.rawValue == b.rawValue
    }

    /// Hashes the code string, the code's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawValue)
    }
}
