/// How one value travels: its canonical CBOR form, how it is read back, and its shape.
///
/// Invariants: `write` is deterministic (one value, one encoding); `read` accepts exactly what
/// `write` produces for some value and throws a typed `SyncKernelError` on anything else, never
/// trapping; reading what `write` wrote gives a value that writes the same bytes again. The
/// standard codecs (`.bytes`, `.text`, `.date`, `.optional`, `.array`, `.record`...) keep these
/// by construction; a `.custom` codec must keep them itself, and the conformance kit checks it.
/// `check`, when present, refuses exactly the values whose encoding `read` would refuse (so a
/// local save can skip the decode and re-encode that would find the same); only the standard
/// codecs have one.
public struct FieldCodec<Value: Sendable>: Sendable {
    /// The codec's wire shape.
    package let shape: CodecShape
    /// Writes one value as one CBOR item.
    package let write: @Sendable (Value, inout CanonicalWriter) -> Void
    /// Reads one item written by `write`.
    package let read: @Sendable (CBORValue) throws(SyncKernelError) -> Value
    /// Writes the value as a top-level leaf item of a `.sequence` leaf: the same as `write`,
    /// except that an optional gets a presence marker (`0`, or `1` and the value), so absent and
    /// empty never hash alike unless the codec says `emptyIsAbsent`.
    package let writeLeafItem: @Sendable (Value, inout CanonicalWriter) -> Void
    /// The value with sub-second noise added to every date it holds, however deeply nested (the
    /// conformance kit checks that the noise moves no encoding); the identity for values without
    /// dates and for custom codecs.
    package let perturb: @Sendable (Value) -> Value
    /// Declaration mistakes found while building the codec (a record member missing, say);
    /// `NamespaceSet` refuses a namespace whose schema carries any.
    package let problems: [String]
    /// Throws (a typed error) exactly when `read` would refuse what `write` writes for the value,
    /// and reading it back gives a value that writes the same bytes and the same leaf item; nil
    /// when the codec cannot tell without a round trip (a custom codec).
    package let check: (@Sendable (Value) throws(SyncKernelError) -> Void)?

    /// Creates a codec; `writeLeafItem` defaults to `write` and `perturb` to the identity; with
    /// no `check`, a save of a value of this codec is validated by a round trip.
    package init(shape: CodecShape, write: @escaping @Sendable (Value, inout CanonicalWriter) -> Void,
                 read: @escaping @Sendable (CBORValue) throws(SyncKernelError) -> Value,
                 writeLeafItem: (@Sendable (Value, inout CanonicalWriter) -> Void)? = nil,
                 perturb: (@Sendable (Value) -> Value)? = nil, problems: [String] = [],
                 check: (@Sendable (Value) throws(SyncKernelError) -> Void)? = nil) {
        self.shape = shape
        self.write = write
        self.read = read
        self.writeLeafItem = writeLeafItem ?? write
        self.perturb = perturb ?? { $0 }
        self.problems = problems
        self.check = check
    }

    /// A check for a codec whose every written value reads back (`read` refuses nothing `write`
    /// writes).
    package static var alwaysReadable: @Sendable (Value) throws(SyncKernelError) -> Void {
        { _ throws(SyncKernelError) in }
    }

    /// A hand-written codec for a value whose wire form is not a composition of the standard
    /// codecs (an enum with payloads, say).
    ///
    /// `name` identifies the format in the schema fingerprint: change it (`"action.v2"`) whenever
    /// `write` changes. `write` must write exactly one CBOR item; `read` must accept exactly what
    /// `write` produces and throw on anything else.
    public static func custom(_ name: String, write: @escaping @Sendable (Value, inout CanonicalWriter) -> Void,
                              read: @escaping @Sendable (CBORValue) throws(SyncKernelError) -> Value) -> FieldCodec {
        FieldCodec(shape: .custom(name: name), write: write, read: read)
    }

    /// The canonical encoding of `value`.
    public func encoded(_ value: Value) -> [UInt8] {
        var writer = CanonicalWriter()
        write(value, &writer)
        return writer.bytes
    }

    /// Decodes one item written by this codec.
    public func decode(_ value: CBORValue) throws(SyncKernelError) -> Value {
        try read(value)
    }
}
