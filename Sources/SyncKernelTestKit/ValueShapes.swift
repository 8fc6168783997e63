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
        case .optional(let wrapped, _), .array(let wrapped): return canGenerate(wrapped)
        case .record(let members): return members.allSatisfy(canGenerate)
        case .bytes, .text, .bool, .date, .int64, .uint64, .enumeration: return true
        }
    }

    static func generate(_ shape: CodecShape, _ generator: inout FieldGenerator) -> CBORValue {
        switch shape {
        case .bytes(let count): return .bytes(generator.bytes(count ?? generator.int(0...32)))
        case .text: return .text(generator.text())
        case .bool: return .bool(generator.chance(0.5))
        case .date: return .tagged(1, .unsigned(UInt64(CanonicalWriter.wholeSeconds(generator.date()))))
        case .int64:
            let value = Int64(generator.int(-1_000_000...1_000_000))
            return value >= 0 ? .unsigned(UInt64(value)) : .negative(UInt64(-1 - value))
        case .uint64: return .unsigned(UInt64(generator.int(0...1_000_000)))
        case .enumeration(let rawValues):
            return .unsigned(rawValues.isEmpty ? 0 : rawValues[generator.int(0...(rawValues.count - 1))])
        case .optional(let wrapped, _): return generator.chance(0.33) ? .null : generate(wrapped, &generator)
        case .array(let element): return .array((0..<generator.int(0...4)).map { _ in generate(element, &generator) })
        case .record(let members): return .array(members.map { generate($0, &generator) })
        case .custom: return .null
        }
    }
}
