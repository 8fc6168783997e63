import SyncKernel

/// The byte layout of a session envelope (outer version 2), written and read by hand, and the
/// derivation of a session's key.
///
///     0    1   format version (2)
///     1    1   wake class (`WakeClass`)
///     2    4   the receiver's session index, big-endian (the receiver chose it in its accept)
///     6    n   the frame counter, unsigned LEB128 in its shortest form (1 to 9 bytes)
///     6+n  …   ChaCha20-Poly1305 (IETF) of the frame under the session key, the nonce the
///              counter, the associated data bytes 0..<6+n; its 16-byte tag last
///
/// Invariants: an envelope adds `overheadBytes(counter:)` to its frame (23 bytes below counter
/// 128, 25 below 2^21, at most 31), so `maxBytes` follows from `SyncFrame.maxFrameBytes`; the
/// header is authenticated with the frame, so a changed index, counter or wake class fails the
/// tag; `header(_:)` accepts only the shortest counter encoding and counters below `counterLimit`,
/// and reads nothing beyond the envelope's bounds. Outside the AEAD the relay sees the index and
/// counter: it can tell which envelopes belong to one session (as WireGuard's receiver index
/// shows it), never which device sent them.
package enum SessionFormat {
    /// The outer format version of a session envelope.
    package static let version: UInt8 = 2
    /// Bytes of a session index.
    package static let indexBytes = 4
    /// Counters stay below this (so their encoding takes at most 9 bytes); a sender renews its
    /// session before it gets there.
    package static let counterLimit: UInt64 = 1 << 62
    /// The most bytes a counter takes.
    package static let maxCounterBytes = 9
    /// The header before the counter: version, wake class, index.
    package static let fixedHeaderBytes = 2 + indexBytes
    /// The smallest session envelope: an empty frame at a one-byte counter.
    package static let minBytes = fixedHeaderBytes + 1 + Sodium.aeadTagBytes
    /// The largest session envelope: the largest frame at the longest counter.
    package static let maxBytes = SyncFrame.maxFrameBytes + fixedHeaderBytes + maxCounterBytes + Sodium.aeadTagBytes
    /// What the key derivation hashes before its inputs.
    private static let keyDomain = Array("synckernel.session.v1".utf8)
    /// What the reply key's derivation hashes before its inputs.
    private static let replyDomain = Array("synckernel.session.reply.v1".utf8)

    /// What a session envelope adds to its frame at `counter`.
    package static func overheadBytes(counter: UInt64) -> Int {
        fixedHeaderBytes + LEB128.byteCount(counter) + Sodium.aeadTagBytes
    }

    /// The clear header of a session envelope, as read (nothing verified).
    package struct Header: Sendable, Hashable {
        /// The receiver's session index.
        package let index: UInt32
        /// The frame counter.
        package let counter: UInt64
        /// Bytes of the header (where the ciphertext starts).
        package let length: Int
    }

    /// The header of `envelope`; nil when it is shorter than a header and a tag, of another
    /// version, or its counter is not in its shortest form or not below `counterLimit`.
    package static func header(_ envelope: [UInt8]) -> Header? {
        guard envelope.count >= minBytes, envelope[0] == version else { return nil }
        let index = envelope[2..<6].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var at = fixedHeaderBytes
        guard let counter = try? LEB128.read(envelope, at: &at, end: fixedHeaderBytes + maxCounterBytes),
              counter < counterLimit, envelope.count - at >= Sodium.aeadTagBytes else { return nil }
        return Header(index: index, counter: counter, length: at)
    }

    /// The session envelope of `frame` at `counter`, to the receiver's `index`, under `key`; nil
    /// for a key of the wrong size or a counter at or above `counterLimit`.
    package static func seal(_ frame: [UInt8], wake: WakeClass, index: UInt32, counter: UInt64, key: [UInt8]) -> [UInt8]? {
        guard counter < counterLimit else { return nil }
        var head: [UInt8] = [version, wake.rawValue]
        head += withUnsafeBytes(of: index.bigEndian) { Array($0) }
        LEB128.append(counter, to: &head)
        guard let sealed = Sodium.aeadSeal(frame, associated: head[...], counter: counter, key: key) else { return nil }
        return head + sealed
    }

    /// The frame inside `envelope`, whose `header` was read by `header(_:)`, under `key`; nil
    /// when its tag does not verify.
    package static func open(_ envelope: [UInt8], header: Header, key: [UInt8]) -> [UInt8]? {
        Sodium.aeadOpen(envelope[header.length...], associated: envelope[0..<header.length], counter: header.counter, key: key)
    }

    /// The key of the session `initiator` opens to `responder`: BLAKE2b-256 keyed with the
    /// account's sibling channel key over the domain, the X25519 secret of the two ephemeral
    /// keys, both ephemeral public keys, both device ids, the hello's id and the session index.
    /// Binding the channel key ends every session with a rotation of the account's keys;
    /// binding the transcript makes a key belong to exactly one handshake. Nil for inputs of
    /// the wrong size or an ephemeral key of small order.
    package static func sessionKey(sharedSecret shared: [UInt8], channelKey: [UInt8], initiator: DeviceID, responder: DeviceID,
                                   helloID: [UInt8], initiatorEphemeral: [UInt8], responderEphemeral: [UInt8],
                                   index: UInt32) -> [UInt8]? {
        derive(keyDomain, shared: shared, channelKey: channelKey, initiator: initiator, responder: responder, helloID: helloID,
               initiatorEphemeral: initiatorEphemeral, responderEphemeral: responderEphemeral, indices: [index])
    }

    /// The key of the reply session a pair hello opens, on which `responder` sends to
    /// `initiator`: as `sessionKey` under its own domain, over the same handshake, with the
    /// reply index (the initiator's) after the responder's index, so the two directions of one
    /// handshake never share a key. Nil as `sessionKey`.
    package static func replyKey(sharedSecret shared: [UInt8], channelKey: [UInt8], initiator: DeviceID, responder: DeviceID,
                                 helloID: [UInt8], initiatorEphemeral: [UInt8], responderEphemeral: [UInt8],
                                 index: UInt32, replyIndex: UInt32) -> [UInt8]? {
        derive(replyDomain, shared: shared, channelKey: channelKey, initiator: initiator, responder: responder, helloID: helloID,
               initiatorEphemeral: initiatorEphemeral, responderEphemeral: responderEphemeral, indices: [index, replyIndex])
    }

    private static func derive(_ domain: [UInt8], shared: [UInt8], channelKey: [UInt8], initiator: DeviceID, responder: DeviceID,
                               helloID: [UInt8], initiatorEphemeral: [UInt8], responderEphemeral: [UInt8],
                               indices: [UInt32]) -> [UInt8]? {
        guard shared.count == Sodium.keyBytes, helloID.count == SessionMessage.helloIDBytes,
              initiatorEphemeral.count == Sodium.keyBytes, responderEphemeral.count == Sodium.keyBytes else { return nil }
        var input = domain
        input += shared
        input += initiatorEphemeral
        input += responderEphemeral
        input += initiator.publicKey
        input += responder.publicKey
        input += helloID
        for index in indices { input += withUnsafeBytes(of: index.bigEndian) { Array($0) } }
        return Sodium.keyedHash(input, key: channelKey, count: Sodium.aeadKeyBytes)
    }
}
