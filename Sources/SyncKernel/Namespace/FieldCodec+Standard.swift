import Foundation

extension FieldCodec where Value == [UInt8] {
    /// A byte string; with `count`, reading refuses any other length.
    public static func bytes(count: Int? = nil) -> FieldCodec {
        FieldCodec(shape: .bytes(count: count), write: { $1.write(bytes: $0) }, read: { value throws(SyncKernelError) in
            guard let count else { return try value.bytes() }
            return try value.bytes(count: count)
        }, check: { value throws(SyncKernelError) in
            if let count, value.count != count { throw SyncKernelError(.malformedFrame, "expected \(count) bytes") }
        })
    }
}

extension FieldCodec where Value == String {
    /// A UTF-8 text string, written byte for byte as given (no normalisation).
    public static var text: FieldCodec {
        FieldCodec(shape: .text, write: { $1.write($0) }, read: { value throws(SyncKernelError) in try value.text() },
                   check: alwaysReadable)
    }
}

extension FieldCodec where Value == Bool {
    /// A boolean.
    public static var bool: FieldCodec {
        FieldCodec(shape: .bool, write: { $1.write($0) }, read: { value throws(SyncKernelError) in try value.bool() },
                   check: alwaysReadable)
    }
}

extension FieldCodec where Value == Date {
    /// A date as tag 1 over whole seconds: sub-second parts are floored away, so a date that
    /// comes back a hair off from a round trip encodes the same.
    public static var date: FieldCodec {
        FieldCodec(shape: .date, write: { $1.write($0) }, read: { value throws(SyncKernelError) in try value.date() },
                   perturb: { $0.addingTimeInterval(0.731) }, check: alwaysReadable)
    }

    /// A date as whole milliseconds since 1970, written as a plain integer: for timestamps that
    /// must keep sub-second order. Sub-millisecond parts are floored away, so a value that comes
    /// back a hair off from a round trip encodes the same; reading gives the floored value and
    /// refuses (`limitExceeded`) a value beyond `CanonicalWriter.maxDateMilliseconds`, which the
    /// writer never produces.
    public static var dateMilliseconds: FieldCodec {
        FieldCodec(shape: .dateMilliseconds, write: { date, writer in writer.write(CanonicalWriter.wholeMilliseconds(date)) },
                   read: { value throws(SyncKernelError) in
                       let milliseconds = try value.int64()
                       guard milliseconds >= -CanonicalWriter.maxDateMilliseconds,
                             milliseconds <= CanonicalWriter.maxDateMilliseconds else {
                           throw SyncKernelError(.limitExceeded, "a date beyond CanonicalWriter.maxDateMilliseconds")
                       }
                       return Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
                   },
                   perturb: { $0.addingTimeInterval(0.000_4) }, check: alwaysReadable)
    }
}

extension FieldCodec where Value == Int64 {
    /// A signed 64-bit integer.
    public static var int64: FieldCodec {
        FieldCodec(shape: .int64, write: { $1.write($0) }, read: { value throws(SyncKernelError) in try value.int64() },
                   check: alwaysReadable)
    }
}

extension FieldCodec where Value == UInt64 {
    /// An unsigned 64-bit integer.
    public static var uint64: FieldCodec {
        FieldCodec(shape: .uint64, write: { $1.write($0) }, read: { value throws(SyncKernelError) in try value.uint() },
                   check: alwaysReadable)
    }
}

extension FieldCodec {
    /// Null or the wrapped value. As a top-level leaf item it is written with a presence marker
    /// instead, so absent and empty never hash alike.
    public static func optional<Wrapped: Sendable>(_ wrapped: FieldCodec<Wrapped>) -> FieldCodec where Value == Wrapped? {
        var check: (@Sendable (Wrapped?) throws(SyncKernelError) -> Void)?
        if let wrappedCheck = wrapped.check {
            check = { value throws(SyncKernelError) in
                if let value { try wrappedCheck(value) }
            }
        }
        return FieldCodec(shape: .optional(wrapped.shape, emptyIsAbsent: false), write: { value, writer in
            if let value { wrapped.write(value, &writer) } else { writer.writeNull() }
        }, read: { item throws(SyncKernelError) in
            item == .null ? nil : try wrapped.read(item)
        }, writeLeafItem: { value, writer in
            writer.writeOptional(value) { writer, present in wrapped.write(present, &writer) }
        }, perturb: { $0.map(wrapped.perturb) }, problems: wrapped.problems, check: check)
    }

    /// Null or the wrapped value, where the leaf treats an empty value as absent: for identity
    /// backfills whose "empty" and "not yet known" are one state (a merge fills either the same
    /// way). The row keeps what it holds; only the leaf folds the two together.
    public static func optional<Wrapped: Collection & Sendable>(_ wrapped: FieldCodec<Wrapped>, emptyIsAbsent: Bool) -> FieldCodec
        where Value == Wrapped? {
        let plain = FieldCodec.optional(wrapped)
        guard emptyIsAbsent else { return plain }
        return FieldCodec(shape: .optional(wrapped.shape, emptyIsAbsent: true), write: plain.write, read: plain.read,
                          writeLeafItem: { value, writer in
                              writer.writeOptional(value.flatMap { $0.isEmpty ? nil : $0 }) { writer, present in
                                  wrapped.write(present, &writer)
                              }
                          }, perturb: plain.perturb, problems: wrapped.problems, check: plain.check)
    }

    /// An array of elements, in the order held (sort it yourself where order is not meaning).
    public static func array<Element: Sendable>(_ element: FieldCodec<Element>) -> FieldCodec where Value == [Element] {
        FieldCodec(shape: .array(element.shape), write: { values, writer in
            writer.writeArray(values) { writer, value in element.write(value, &writer) }
        }, read: { item throws(SyncKernelError) in
            var values: [Element] = []
            for entry in try item.array() { values.append(try element.read(entry)) }
            return values
        }, perturb: { $0.map(element.perturb) }, problems: element.problems)
    }

    /// An enumeration with unsigned integer raw values, written as its raw value; reading
    /// refuses any value that is not one of the cases.
    public static func enumeration() -> FieldCodec
        where Value: RawRepresentable & CaseIterable, Value.RawValue: FixedWidthInteger & UnsignedInteger {
        let rawValues = Value.allCases.map { UInt64($0.rawValue) }.sorted()
        return FieldCodec(shape: .enumeration(rawValues: rawValues), write: { $1.write(UInt64($0.rawValue)) },
                          read: { item throws(SyncKernelError) in
                              let raw = try item.uint()
                              guard let narrowed = Value.RawValue(exactly: raw), let value = Value(rawValue: narrowed) else {
                                  throw SyncKernelError(.malformedFrame, "not a case of the enumeration")
                              }
                              return value
                          }, check: alwaysReadable)
    }

    /// A value with named members, written as a positional array in declaration order and read
    /// back into `blank`. Every stored property of the value must be a member.
    public static func record(_ blank: Value, _ members: [Field<Value>]) -> FieldCodec {
        let count = members.count
        let readers = members.map(\.read)
        return FieldCodec(shape: .record(members.map(\.shape)), write: { value, writer in
            writer.writeArrayHeader(count: count)
            for member in members { member.writeRow(value, &writer) }
        }, read: { item throws(SyncKernelError) in
            let items = try item.array()
            guard items.count == count else { throw SyncKernelError(.malformedFrame, "a record has \(count) members") }
            var value = blank
            try Field<Value>.read(items[...], with: readers, into: &value)
            return value
        }, perturb: { value in members.reduce(value) { $1.perturb($0) } },
        problems: DeclarationAudit.problems(blank: blank, fields: members, what: "record \(Value.self)"),
        check: Field.check(of: members))
    }
}
