/// The kind of device a sibling is ("Linux", "macOS", "iPhone"), which its acknowledgement
/// carries so the new device can say where to approve ("approve on your Linux") instead of an
/// unlabelled wait.
///
/// Invariants: 1 to 32 ASCII letters, digits, spaces, `-`, `_` or `.`, so it is safe to print
/// and to put on a command line's output whatever a sibling sends.
public struct DeviceFamily: Sendable, Hashable, CustomStringConvertible {
    /// The longest family in bytes.
    public static let maxBytes = 32

    /// The family's name.
    public let value: String

    /// `value` when it is 1 to 32 letters, digits, spaces, `-`, `_` or `.`; nil otherwise.
    public init?(_ value: String) {
        guard (1...Self.maxBytes).contains(value.utf8.count), value.utf8.allSatisfy(Self.isAllowed) else { return nil }
        self.value = value
    }

    /// The family of the machine this runs on.
    public static var thisMachine: DeviceFamily {
        #if os(macOS)
        DeviceFamily(validated: "macOS")
        #elseif os(Linux)
        DeviceFamily(validated: "Linux")
        #else
        DeviceFamily(validated: "device")
        #endif
    }

    /// A family this file spells out itself.
    private init(validated value: String) {
        self.value = value
    }

    /// Whether `byte` may appear in a family.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: " "), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    }

    /// The family's name.
    public var description: String { value }
}
