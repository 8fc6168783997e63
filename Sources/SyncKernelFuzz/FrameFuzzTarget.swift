import SyncKernel

/// The frame decoder's fuzz entry: `SyncFrame(decoding:sender:positions:budget:)` as a replica
/// decodes (knowing the sender, the replica harness's device 1, the receiver, its device 0, and
/// the harness's namespace positions), then a re-encoding round trip.
///
/// Checks: an accepted frame re-encodes to bytes the decoder accepts again, with the same
/// account, schema, capabilities and body (the decoder tolerates unknown keys, so the bytes
/// themselves may differ); the budget the decode charged stays within its limit.
enum FrameFuzzTarget {
    /// The sender every input is decoded as coming from.
    private static let sender = try? ReplicaHarness.device(1)
    /// The device every input is decoded as going to.
    private static let receiver = try? ReplicaHarness.device(0)

    static func run(_ bytes: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        var budget = DecodeBudget(inputBytes: bytes.count)
        guard let frame = try? SyncFrame(decoding: bytes, sender: sender, positions: ReplicaHarness.positions, receiver: receiver,
                                         budget: &budget) else {
            return .refused
        }
        guard budget.charged <= budget.limit else { throw FuzzViolation("frame: the decode charged more than its budget") }
        let again: SyncFrame
        do {
            let encoded = frame.encoded()
            var encodedBudget = DecodeBudget(inputBytes: encoded.count)
            again = try SyncFrame(decoding: encoded, sender: sender, positions: ReplicaHarness.positions, receiver: receiver,
                                   budget: &encodedBudget)
        } catch {
            throw FuzzViolation("frame: the re-encoding of an accepted \(frame.body.kind) frame is refused (\(error.code))")
        }
        guard again.account == frame.account, again.schema == frame.schema, again.capabilities == frame.capabilities,
              again.body == frame.body else {
            throw FuzzViolation("frame: an accepted \(frame.body.kind) frame changes through a re-encoding")
        }
        return .accepted
    }
}
