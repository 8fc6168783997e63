import SyncRelay
import SyncKernel

/// The subjects a relay connection publishes to and listens on.
///
/// Invariant: a subject `validate` accepts names exactly one inbox: one to 16 dot-separated
/// tokens of ASCII letters, digits, `-` and `_`, at most `maxBytes` long, so it holds no NATS
/// wildcard (`*`, `>`) that would let a device listen on another's inbox, and no whitespace
/// that would break the protocol line.
public enum RelaySubject {
    /// The longest subject accepted.
    public static let maxBytes = 200
    /// The most tokens a subject may have.
    public static let maxTokens = 16

    /// Returns `subject`, or throws `invalidSubject`.
    @discardableResult
    public static func validate(_ subject: String) throws(RelayError) -> String {
        let bytes = Array(subject.utf8)
        guard !bytes.isEmpty, bytes.count <= maxBytes else {
            throw RelayError(.invalidSubject, "empty or longer than \(maxBytes) bytes")
        }
        let tokens = bytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard tokens.count <= maxTokens else { throw RelayError(.invalidSubject, "more than \(maxTokens) tokens") }
        for token in tokens {
            guard !token.isEmpty else { throw RelayError(.invalidSubject, "an empty token") }
            guard token.allSatisfy(isTokenByte) else {
                throw RelayError(.invalidSubject, "a byte other than a letter, a digit, - or _")
            }
        }
        return subject
    }

    /// Letters, digits, `-` and `_`.
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default:
            false
        }
    }
}
