import SyncKernel

/// The handshake messages of an envelope session, each the frame of a whole envelope (so it is
/// sealed to its recipient, carries its sender's certificate, and is signed, MAC'd and checked
/// against the seen set like any frame), written and read by hand.
///
///     hello       "SKSN" 1  hello id (16)  initiator's ephemeral X25519 key (32)  epoch (16)                          69 bytes
///     pair hello  "SKSN" 3  hello id (16)  initiator's ephemeral X25519 key (32)  reply index (4)  epoch (16)  frame  73 + frame bytes
///     accept      "SKSN" 2  hello id (16)  responder's ephemeral X25519 key (32)  index (4)  epoch (16)               73 bytes
///
/// A device sends a hello to open the session it will send on; the sibling answers with an
/// accept naming the index it files the session under. A pair hello opens both directions with
/// one handshake: it names the index the initiator files the sibling's reply session under (the
/// responder sends on it from the moment it accepts), and carries the initiator's first frame,
/// which would otherwise go in a whole envelope of its own (it may be empty). `epoch` is the
/// sending device's `SessionPolicy.epoch`: the run whose receiving sessions it speaks for.
///
/// Invariants: a hello and an accept are exactly their sizes, a pair hello at least its fixed
/// part, and every message starts with the magic, whose first byte (0x53) is never the CBOR map
/// head a frame starts with, and whose fourth differs from a transfer message's ("SKXF"), so a
/// host tells the three apart by their first bytes; `decoding` accepts exactly the bytes
/// `encoded()` writes.
package enum SessionMessage: Sendable, Hashable {
    /// A request to open a session: the initiator's ephemeral key.
    case hello(Hello)
    /// The answer: the responder's ephemeral key and the index the session is filed under.
    case accept(Accept)

    /// The magic every session message starts with.
    package static let magic = Array("SKSN".utf8)
    /// Bytes of a hello id.
    package static let helloIDBytes = 16
    /// Bytes of a hello.
    package static let helloBytes = magic.count + 1 + helloIDBytes + Sodium.keyBytes + SessionPolicy.epochBytes
    /// Bytes of an accept.
    package static let acceptBytes = helloBytes + SessionFormat.indexBytes
    /// Bytes of a pair hello before the frame it carries.
    package static let pairHelloBytes = helloBytes + SessionFormat.indexBytes

    /// A hello's fields.
    package struct Hello: Sendable, Hashable {
        /// Names this handshake (random).
        package let helloID: [UInt8]
        /// The initiator's ephemeral X25519 public key.
        package let ephemeral: [UInt8]
        /// The initiator's epoch.
        package let epoch: [UInt8]
        /// A pair hello's: the index the initiator files the reply session under; nil for a hello
        /// that opens one direction.
        package let replyIndex: UInt32?
        /// The frame a pair hello carries (empty for none, always for a one-direction hello).
        package let frame: [UInt8]

        /// A hello from its fields (sizes are the encoder's: `helloIDBytes`, 32, `epochBytes`);
        /// with `replyIndex`, a pair hello carrying `frame`.
        package init(helloID: [UInt8], ephemeral: [UInt8], epoch: [UInt8], replyIndex: UInt32? = nil, frame: [UInt8] = []) {
            self.helloID = helloID
            self.ephemeral = ephemeral
            self.epoch = epoch
            self.replyIndex = replyIndex
            self.frame = replyIndex == nil ? [] : frame
        }

        /// The same handshake carrying `frame` instead.
        package func carrying(_ frame: [UInt8]) -> Hello {
            Hello(helloID: helloID, ephemeral: ephemeral, epoch: epoch, replyIndex: replyIndex, frame: frame)
        }
    }

    /// An accept's fields.
    package struct Accept: Sendable, Hashable {
        /// The hello it answers.
        package let helloID: [UInt8]
        /// The responder's ephemeral X25519 public key.
        package let ephemeral: [UInt8]
        /// The index the responder files the session under.
        package let index: UInt32
        /// The responder's epoch.
        package let epoch: [UInt8]

        /// An accept from its fields (sizes as a hello's, the index any 32 bits).
        package init(helloID: [UInt8], ephemeral: [UInt8], index: UInt32, epoch: [UInt8]) {
            self.helloID = helloID
            self.ephemeral = ephemeral
            self.index = index
            self.epoch = epoch
        }
    }

    /// Whether `frame` starts with the session magic (it is then a session message or junk,
    /// never a frame for the replica).
    package static func hasMagic(_ frame: [UInt8]) -> Bool {
        frame.count >= magic.count && frame[0..<magic.count].elementsEqual(magic)
    }

    /// The message's bytes.
    package func encoded() -> [UInt8] {
        switch self {
        case .hello(let hello):
            guard let reply = hello.replyIndex else { return SessionMessage.magic + [1] + hello.helloID + hello.ephemeral + hello.epoch }
            return SessionMessage.magic + [3] + hello.helloID + hello.ephemeral
                + withUnsafeBytes(of: reply.bigEndian) { Array($0) } + hello.epoch + hello.frame
        case .accept(let accept):
            return SessionMessage.magic + [2] + accept.helloID + accept.ephemeral
                + withUnsafeBytes(of: accept.index.bigEndian) { Array($0) } + accept.epoch
        }
    }

    /// Reads a message; nil for anything but exactly a hello's or an accept's bytes, or a pair
    /// hello's fixed part and its frame.
    package init?(decoding bytes: [UInt8]) {
        guard SessionMessage.hasMagic(bytes), bytes.count > SessionMessage.magic.count else { return nil }
        let kind = bytes[SessionMessage.magic.count]
        var at = SessionMessage.magic.count + 1
        func take(_ count: Int) -> [UInt8] {
            defer { at += count }
            return Array(bytes[at..<(at + count)])
        }
        switch (kind, bytes.count) {
        case (1, SessionMessage.helloBytes):
            self = .hello(Hello(helloID: take(SessionMessage.helloIDBytes), ephemeral: take(Sodium.keyBytes),
                                epoch: take(SessionPolicy.epochBytes)))
        case (3, SessionMessage.pairHelloBytes...):
            let helloID = take(SessionMessage.helloIDBytes)
            let ephemeral = take(Sodium.keyBytes)
            let reply = take(SessionFormat.indexBytes).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            self = .hello(Hello(helloID: helloID, ephemeral: ephemeral, epoch: take(SessionPolicy.epochBytes), replyIndex: reply,
                                frame: Array(bytes[at...])))
        case (2, SessionMessage.acceptBytes):
            let helloID = take(SessionMessage.helloIDBytes)
            let ephemeral = take(Sodium.keyBytes)
            let index = take(SessionFormat.indexBytes).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            self = .accept(Accept(helloID: helloID, ephemeral: ephemeral, index: index, epoch: take(SessionPolicy.epochBytes)))
        default:
            return nil
        }
    }
}
