/// Per-conversation read marks stored as settings, encoded so the larger string is the later mark.
///
/// Invariant: `encode` yields exactly 12 decimal digits for every second count in range, so a
/// bytewise comparison of two encodings agrees with a numeric comparison of the marks, and the
/// settings tie-break ("larger string wins") keeps the later watermark.
public enum ReadState {
    /// The key prefix of read marks in the settings dictionary.
    public static let keyPrefix = "read."
    /// The largest mark representable in 12 digits.
    public static let maxSeconds: Int64 = 999_999_999_999

    /// The settings key of `conversation`'s read mark.
    public static func key(conversation: String) -> String { keyPrefix + conversation }

    /// The fixed-width encoding of a mark (clamped to 0...maxSeconds).
    public static func encode(seconds: Int64) -> String {
        let clamped = min(max(seconds, 0), maxSeconds)
        let digits = String(clamped)
        return String(repeating: "0", count: 12 - digits.count) + digits
    }

    /// The mark an encoding holds; nil for anything `encode` could not have written.
    public static func decode(_ value: String) -> Int64? {
        guard value.utf8.count == 12, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(value)
    }
}
