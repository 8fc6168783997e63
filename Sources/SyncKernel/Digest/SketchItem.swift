import CSodium

/// One element of a rateless sketch: a row key and a 64-bit tag naming the row's version.
///
/// Invariants: `key` holds at most `maxKeyBytes` bytes; the tag's low 32 bits are expected to be
/// `keyCheck(key, identity: high 32 bits)` (the `itemHash` initialiser guarantees it), which is
/// how a decoder tells a coded symbol holding one item from a mixture. The check binds the key
/// to the identity, so two items with one key and different tags (an edited row: one removed
/// item, one added) do not cancel out of the check bits while their framed keys cancel out of
/// the key sum.
package struct SketchItem: Sendable, Hashable {
    /// The row key.
    package let key: [UInt8]
    /// High 32 bits from the item hash (the leaf's identity), low 32 bits the key check.
    package let tag: UInt64

    /// The longest key a sketch carries, in bytes.
    package static let maxKeyBytes = 4096

    /// An item with an explicit tag.
    ///
    /// Invariant: `key.count <= maxKeyBytes`; a longer key is a caller bug (row keys are bounded
    /// before they reach a sketch) and stops the process.
    package init(key: [UInt8], tag: UInt64) {
        precondition(key.count <= Self.maxKeyBytes, "sketch keys hold at most SketchItem.maxKeyBytes bytes")
        self.key = key
        self.tag = tag
    }

    /// An item whose tag joins the first four bytes of `itemHash` (big-endian, the identity) with
    /// the key's check under that identity.
    ///
    /// Invariant: `tag >> 32` is `itemHash[0..<4]` read big-endian (a shorter hash reads as if
    /// padded with zero bytes) and the low 32 bits are `keyCheck(key, identity: tag >> 32)`.
    package init(key: [UInt8], itemHash: [UInt8]) {
        var identity: UInt32 = 0
        for position in 0..<4 {
            let index = itemHash.startIndex + position
            identity = identity << 8 | UInt32(index < itemHash.endIndex ? itemHash[index] : 0)
        }
        self.init(key: key, tag: UInt64(identity) << 32 | UInt64(Self.keyCheck(key, identity: identity)))
    }

    /// The 32-bit check of a key under an identity: the low 32 bits of SipHash-2-4
    /// (`crypto_shorthash`) of the key, keyed by the identity's four big-endian bytes followed by
    /// twelve zero bytes (so identity 0 is the all-zero key).
    ///
    /// Invariant: a pure function of the key's bytes and the identity, equal on every device.
    package static func keyCheck(_ key: [UInt8], identity: UInt32 = 0) -> UInt32 {
        _ = SHA256.ready
        let secret = (UInt64(identity.byteSwapped).littleEndian, UInt64(0))
        var digest: UInt64 = 0
        withUnsafeBytes(of: secret) { secretBytes in
            withUnsafeMutableBytes(of: &digest) { out in
                guard let base = out.baseAddress?.assumingMemoryBound(to: UInt8.self),
                      let keyBase = secretBytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
                _ = crypto_shorthash(base, key, UInt64(key.count), keyBase)
            }
        }
        return UInt32(truncatingIfNeeded: UInt64(littleEndian: digest))
    }

    /// The key as it is XOR-ed into a coded symbol: the LEB128 varint of `key.count`, then the key.
    ///
    /// Invariant: its length is `LEB128.byteCount(UInt64(key.count)) + key.count`, and it is the
    /// only framing `CodedSymbol.pureItem` parses back to this key.
    package var framedKey: [UInt8] {
        var framed: [UInt8] = []
        framed.reserveCapacity(LEB128.byteCount(UInt64(key.count)) + key.count)
        LEB128.append(UInt64(key.count), to: &framed)
        framed.append(contentsOf: key)
        return framed
    }
}
