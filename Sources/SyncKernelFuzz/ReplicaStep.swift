/// One step of the replica target's input: a local edit, a tick, or a frame from a sibling.
///
/// Invariant: `ReplicaStep.parse` reads any byte string into at most `maxSteps` steps without
/// trapping, and `encode` writes steps that `parse` reads back as the same steps (frames up to
/// 65,535 bytes).
package enum ReplicaStep: Sendable, Hashable {
    /// A local edit chosen by two bytes: `key` picks the row and the kind of edit, `value` its content.
    case edit(key: UInt8, value: UInt8)
    /// Time moves to the replica's next deadline (or on by a step) and the replica ticks.
    case tick
    /// `bytes` arrive from sibling `sender` (0 or 1).
    case frame(sender: Int, bytes: [UInt8])

    /// The most steps one input runs.
    package static let maxSteps = 32

    /// The steps `bytes` describe: each starts with an op byte; `op % 4 == 0` is an edit (two
    /// bytes follow), `1` a tick, otherwise a frame from sibling `(op >> 2) & 1` whose length
    /// follows as two little-endian bytes (cut short at the end of the input).
    package static func parse(_ bytes: [UInt8]) -> [ReplicaStep] {
        var steps: [ReplicaStep] = []
        var offset = 0
        while offset < bytes.count, steps.count < maxSteps {
            let op = bytes[offset]
            offset += 1
            switch op % 4 {
            case 0:
                guard offset + 2 <= bytes.count else { return steps }
                steps.append(.edit(key: bytes[offset], value: bytes[offset + 1]))
                offset += 2
            case 1:
                steps.append(.tick)
            default:
                guard offset + 2 <= bytes.count else { return steps }
                let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
                offset += 2
                let end = min(bytes.count, offset + length)
                steps.append(.frame(sender: Int(op >> 2) & 1, bytes: Array(bytes[offset..<end])))
                offset = end
            }
        }
        return steps
    }

    /// The input bytes of `steps`, as `parse` reads them.
    package static func encode(_ steps: [ReplicaStep]) -> [UInt8] {
        var out: [UInt8] = []
        for step in steps {
            switch step {
            case .edit(let key, let value):
                out += [0, key, value]
            case .tick:
                out.append(1)
            case .frame(let sender, let bytes):
                let kept = bytes.prefix(Int(UInt16.max))
                out += [UInt8(2 | (sender & 1) << 2), UInt8(kept.count & 0xff), UInt8(kept.count >> 8)]
                out += kept
            }
        }
        return out
    }
}
