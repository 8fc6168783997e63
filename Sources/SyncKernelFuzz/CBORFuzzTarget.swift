import SyncKernel

/// The CBOR reader's fuzz entry: decode one item and a sequence, and re-encode what was accepted.
///
/// Checks: an accepted item re-encodes to exactly the input (the reader accepts only canonical
/// encodings, so anything else means it accepted a non-canonical form); a sequence decode of the
/// same input agrees with the single-item decode (one item, equal) whenever the single decode
/// succeeds; an accepted sequence re-encodes item by item to the input.
enum CBORFuzzTarget {
    static func run(_ bytes: [UInt8]) throws(FuzzViolation) -> FuzzOutcome {
        var accepted = false
        if let item = try? CBORReader.decode(bytes) {
            accepted = true
            guard item.encoded() == bytes else { throw FuzzViolation("cbor: an accepted item does not re-encode to its input") }
            guard let sequence = try? CBORReader.decodeSequence(bytes) else {
                throw FuzzViolation("cbor: decodeSequence refused an input decode accepted")
            }
            guard sequence.count == 1, sequence[0].encoded() == bytes else {
                throw FuzzViolation("cbor: decodeSequence disagrees with decode")
            }
        }
        if let sequence = try? CBORReader.decodeSequence(bytes) {
            accepted = true
            guard sequence.flatMap({ $0.encoded() }) == bytes else {
                throw FuzzViolation("cbor: an accepted sequence does not re-encode to its input")
            }
        }
        return accepted ? .accepted : .refused
    }
}
