import Foundation
import SyncKernel

/// A generator of values of one type, for declaring fields.
public struct ValueGenerator<Value>: Sendable {
    /// Produces the next value.
    public let next: @Sendable (inout FieldGenerator) -> Value

    /// Wraps a closure.
    public init(_ next: @escaping @Sendable (inout FieldGenerator) -> Value) {
        self.next = next
    }

    /// Random text of a few words.
    public static var text: ValueGenerator<String> { ValueGenerator<String> { $0.text() } }
    /// Random bytes of a fixed length.
    public static func bytes(_ count: Int) -> ValueGenerator<[UInt8]> { ValueGenerator<[UInt8]> { $0.bytes(count) } }
    /// A random boolean.
    public static var bool: ValueGenerator<Bool> { ValueGenerator<Bool> { $0.chance(0.5) } }
    /// A random whole-second date.
    public static var date: ValueGenerator<Date> { ValueGenerator<Date> { $0.date() } }
    /// A random 64-bit integer in a small range.
    public static var int64: ValueGenerator<Int64> { ValueGenerator<Int64> { Int64($0.int(0...1_000_000)) } }
    /// A random unsigned integer in a small range.
    public static var uint64: ValueGenerator<UInt64> { ValueGenerator<UInt64> { UInt64($0.int(0...1_000_000)) } }
    /// An array of 0 to 4 values.
    public static func array<Element>(_ element: ValueGenerator<Element>) -> ValueGenerator<[Element]> {
        ValueGenerator<[Element]> { generator in (0..<generator.int(0...4)).map { _ in element.next(&generator) } }
    }
    /// Absent a third of the time, else a value.
    public static func optional<Wrapped>(_ wrapped: ValueGenerator<Wrapped>) -> ValueGenerator<Wrapped?> {
        ValueGenerator<Wrapped?> { generator in generator.chance(0.33) ? nil : wrapped.next(&generator) }
    }
}
