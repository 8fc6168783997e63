/// A value ordered by an edit counter rather than a clock: the field merge for "last edit wins"
/// inside a `.join()` row (a title beside a monotone flag, say).
///
/// Invariants: `set` moves the counter past every counter this copy has merged, so an edit made
/// after seeing another wins over it under `FieldMerge.register()` whatever either device's clock
/// says; two edits made concurrently (one counter) go to the greater value encoding on every
/// device. No clock is read. The counter saturates at `UInt64.max` (an edit beyond it no longer
/// wins; a peer that sends such a counter gains nothing over later honest edits it has seen).
public struct Register<Value: Sendable & Hashable>: Sendable, Hashable {
    /// The current value.
    public private(set) var value: Value
    /// How many edits this value descends from.
    public private(set) var counter: UInt64

    /// A register holding `value` with no edits.
    public init(_ value: Value) {
        self.value = value
        counter = 0
    }

    /// A register as read from the wire.
    package init(value: Value, counter: UInt64) {
        self.value = value
        self.counter = counter
    }

    /// Sets `newValue` as a new edit, ordered after everything this copy has seen.
    public mutating func set(_ newValue: Value) {
        value = newValue
        if counter < UInt64.max { counter += 1 }
    }
}

extension FieldCodec {
    /// A `Register`, written as `[counter, value]` (canonical integers keep counter order bytewise).
    public static func register<Wrapped: Sendable & Hashable>(_ wrapped: FieldCodec<Wrapped>) -> FieldCodec
        where Value == Register<Wrapped> {
        var check: (@Sendable (Register<Wrapped>) throws(SyncKernelError) -> Void)?
        if let valueCheck = wrapped.check {
            check = { register throws(SyncKernelError) in try valueCheck(register.value) }
        }
        return FieldCodec(shape: .register(wrapped.shape), write: { register, writer in
            writer.writeArrayHeader(count: 2)
            writer.write(register.counter)
            wrapped.write(register.value, &writer)
        }, read: { item throws(SyncKernelError) in
            let items = try item.fields(2, of: "a register")
            return Register(value: try wrapped.read(items[1]), counter: try items[0].uint())
        }, perturb: { Register(value: wrapped.perturb($0.value), counter: $0.counter) }, problems: wrapped.problems,
        check: check)
    }
}
