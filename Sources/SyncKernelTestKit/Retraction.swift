import Foundation
import SyncKernel

/// How a device deletes or retracts a row in the row's own data (a delete operation, a
/// retracted flag), for rules that keep no tombstones.
///
/// Invariant required of a correct namespace: a retraction is visible on the device that made it
/// as soon as it is saved, and once any device has seen it no merge undoes it.
public struct Retraction<Row>: Sendable {
    /// The row retracted at `clock` by this device.
    public let retract: @Sendable (_ row: Row, _ generator: inout FieldGenerator, _ clock: Date) -> Row
    /// Whether `row` reads as retracted.
    public let isRetracted: @Sendable (Row) -> Bool

    /// Declares a retraction.
    public init(retract: @escaping @Sendable (_ row: Row, _ generator: inout FieldGenerator, _ clock: Date) -> Row,
                isRetracted: @escaping @Sendable (Row) -> Bool) {
        self.retract = retract
        self.isRetracted = isRetracted
    }
}
