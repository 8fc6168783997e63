import Foundation
import SyncKernel

/// Generates CBOR values of a codec's shape, which the field's own codec then reads.
///
/// Invariant: every generated value is one the standard codec of that shape accepts; custom
/// shapes are not generated (`canGenerate` is false for any shape containing one).
enum ValueShapes {
    static func canGenerate(_ shape: CodecShape) -> Bool {
        switch shape {
        case .custom: return false
        case .optional(let wrapped, _), .array(let wrapped), .register(let wrapped): return canGenerate(wrapped)
        case .record(let members): return members.allSatisfy(canGenerate)
        case .bytes, .text, .bool, .date, .dateMilliseconds, .int64, .uint64, .enumeration: return true
        }
    }

    static func generate(_ shape: CodecShape, _ generator: inout FieldGenerator) -> CBORValue {
        switch shape {
        case .bytes(let count): return .bytes(count.map { generator.bytes($0) } ?? generator.anyBytes())
        case .text: return .text(generator.text())
        case .bool: return .bool(generator.chance(0.5))
        case .date: return .tagged(1, integer(CanonicalWriter.wholeSeconds(generator.date())))
        case .dateMilliseconds: return integer(CanonicalWriter.wholeSeconds(generator.date()) * 1000 + Int64(generator.int(0...999)))
        case .int64: return integer(generator.int64())
        case .uint64: return .unsigned(generator.uint64())
        case .enumeration(let rawValues): return .unsigned(rawValues.isEmpty ? 0 : generator.pick(rawValues))
        case .optional(let wrapped, _): return generator.chance(0.3) ? .null : generate(wrapped, &generator)
        case .array(let element): return .array((0..<generator.int(0...4)).map { _ in generate(element, &generator) })
        case .record(let members): return .array(members.map { generate($0, &generator) })
        case .register(let value): return .array([.unsigned(UInt64(generator.int(0...6))), generate(value, &generator)])
        case .custom: return .null
        }
    }

    /// `item` with every text in it in `form`: a twin that Swift's `String ==` calls equal and
    /// whose bytes differ wherever the text has combining forms.
    static func twin(_ item: CBORValue, decomposed: Bool) -> CBORValue {
        switch item {
        case .text(let text):
            return .text(decomposed ? text.decomposedStringWithCanonicalMapping : text.precomposedStringWithCanonicalMapping)
        case .array(let items): return .array(items.map { twin($0, decomposed: decomposed) })
        case .tagged(let tag, let inner): return .tagged(tag, twin(inner, decomposed: decomposed))
        default: return item
        }
    }

    /// The CBOR integer for `value`.
    static func integer(_ value: Int64) -> CBORValue {
        value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
    }

    /// `item` with an empty value and null made one, where the shape declares them one value.
    static func normalized(_ item: CBORValue, _ shape: CodecShape) -> CBORValue {
        guard case .optional(_, true) = shape else { return item }
        switch item {
        case .bytes(let value) where value.isEmpty: return .null
        case .text(let value) where value.isEmpty: return .null
        case .array(let value) where value.isEmpty: return .null
        default: return item
        }
    }
}
