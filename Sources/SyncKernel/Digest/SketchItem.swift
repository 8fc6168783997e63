import CSodium

/// One element of a rateless sketch: a row key, a 32-bit tag naming the row's version, and the
/// 64-bit seed of the item's symbol mapping.
///
/// Invariants: `key` holds at most `maxKeyBytes` bytes; the tag is `identity << 16 | check`,
/// where `identity` (16 bits) names the row's version and `seed` is always
/// `keyHash(key, identity: identity)`, a function of (key, tag), so a decoder that peels a pure
/// symbol (key and tag) computes the item's mapping without any other state. The tag's low 16
/// bits are expected to be the seed's low 16 bits (the `itemHash` initialiser guarantees it):
/// that check is how a decoder tells a coded symbol holding one item from a mixture (a mixture
/// passes it about once in 65,536 tests). The check binds the key to the identity, so two items
/// with one key and different identities (an edited row: one removed item, one added) do not
/// cancel out of the check bits while their framed keys cancel out of the key sum.
package struct SketchItem: Sendable, Hashable {
    /// The row key.
    package let key: [UInt8]
    /// High 16 bits from the item hash (the leaf's identity), low 16 bits the key check.
    package let tag: UInt32
    /// The seed of the item's `SymbolMapping`: `keyHash(key, identity: identity)`.
    package let seed: UInt64

    /// The longest key a sketch carries, in bytes.
    package static let maxKeyBytes = 4096

    /// An item with an explicit tag; its seed is computed from the key and the tag's identity.
    ///
    /// Invariant: `key.count <= maxKeyBytes`; a longer key is a caller bug (row keys are bounded
    /// before they reach a sketch) and stops the process. The tag's check bits are kept as given
    /// (a test may build an item whose check does not match; no decoder returns one).
    package init(key: [UInt8], tag: UInt32) {
        self.init(key: key, tag: tag, seed: Self.keyHash(key, identity: UInt16(truncatingIfNeeded: tag >> 16)))
    }

    /// An item whose tag joins the first two bytes of `itemHash` (big-endian, the identity) with
    /// the key's check under that identity.
    ///
    /// Invariant: `identity` is `itemHash[0..<2]` read big-endian (a shorter hash reads as if
    /// padded with zero bytes), `seed` is `keyHash(key, identity: identity)` and `check` is the
    /// seed's low 16 bits.
    package init(key: [UInt8], itemHash: [UInt8]) {
        var identity: UInt16 = 0
        for position in 0..<2 {
            let index = itemHash.startIndex + position
            identity = identity << 8 | UInt16(index < itemHash.endIndex ? itemHash[index] : 0)
        }
        let seed = Self.keyHash(key, identity: identity)
        self.init(key: key, tag: UInt32(identity) << 16 | UInt32(UInt16(truncatingIfNeeded: seed)), seed: seed)
    }

    /// An item whose seed the caller already computed (a decoder that checked a pure symbol).
    ///
    /// Invariant: `seed == keyHash(key, identity: tag >> 16)` is the caller's duty.
    init(key: [UInt8], tag: UInt32, seed: UInt64) {
        precondition(key.count <= Self.maxKeyBytes, "sketch keys hold at most SketchItem.maxKeyBytes bytes")
        self.key = key
        self.tag = tag
        self.seed = seed
    }

    /// The version's identity: the tag's high 16 bits.
    package var identity: UInt16 { UInt16(truncatingIfNeeded: tag >> 16) }

    /// The key check: the tag's low 16 bits.
    package var check: UInt16 { UInt16(truncatingIfNeeded: tag) }

    /// The 64-bit hash of a key under an identity: SipHash-2-4 (`crypto_shorthash`) of the key's
    /// bytes, keyed by the 16-byte secret made of the identity's two big-endian bytes followed by
    /// fourteen zero bytes (so identity 0 is the all-zero key), its 8 output bytes read
    /// little-endian. Its low 16 bits are an item's check; the whole is its mapping seed.
    ///
    /// Invariant: a pure function of the key's bytes and the identity, equal on every device.
    package static func keyHash(_ key: [UInt8], identity: UInt16 = 0) -> UInt64 {
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
        return UInt64(littleEndian: digest)
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
