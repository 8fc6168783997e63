import SyncKernel

/// The common head of every transfer message (`SyncRequest`, `SyncOffer`, `SyncDecline`,
/// `SyncBroken`, `SyncAck`), written and read by hand:
///
///     0   4   magic "SKXF"
///     4   1   version (1)
///     5   1   kind (1 request, 2 offer, 3 decline, 4 broken, 5 ack)
///     6   16  request id (every kind)
///
/// Invariants: one encoding per message (fixed lengths per kind, no optional field, every
/// enumerated byte checked), so a message re-encodes to its own bytes; the magic's first byte
/// (0x53) is a CBOR byte-string head, never the map head a `sync_delta` frame starts with, so a
/// host tells a transfer message from a frame by its first bytes (`TransferMessage.isTransferMessage`);
/// nothing longer than `maxMessageBytes` is parsed at all.
package enum TransferFormat {
    /// The magic every transfer message starts with.
    package static let magic: [UInt8] = Array("SKXF".utf8)
    /// The format version.
    package static let version: UInt8 = 1
    /// Bytes of a request id.
    package static let requestIDBytes = 16
    /// Bytes of the head: magic, version, kind.
    package static let headBytes = 6
    /// The longest message of any kind is far below this; longer input is refused unread.
    package static let maxMessageBytes = 256

    /// The kinds, by their byte.
    package enum Kind: UInt8, Sendable, CaseIterable {
        /// `SyncRequest`.
        case request = 1
        /// `SyncOffer`.
        case offer = 2
        /// `SyncDecline`.
        case decline = 3
        /// `SyncBroken`.
        case broken = 4
        /// `SyncAck`.
        case ack = 5
    }

    /// The head of a message of `kind` for `requestID`.
    static func head(_ kind: Kind, requestID: [UInt8]) -> [UInt8] {
        var bytes = magic
        bytes.append(version)
        bytes.append(kind.rawValue)
        return bytes + requestID
    }

    /// Reads the head of `bytes`, refusing oversized input, another magic or version
    /// (`unsupportedTransferMessage`) and a kind other than `expected`; returns the reader past
    /// the request id and the id.
    static func open(_ bytes: [UInt8], expecting expected: Kind) throws -> (FixedLayoutReader, requestID: [UInt8]) {
        guard bytes.count <= maxMessageBytes else { throw SyncKernelError(.limitExceeded, "a transfer message too long") }
        var reader = FixedLayoutReader(bytes)
        guard try reader.read(magic.count) == magic, try reader.byte() == version else {
            throw SnapshotTransferError(.unsupportedTransferMessage, "another magic or version")
        }
        guard try reader.byte() == expected.rawValue else { throw SnapshotTransferError(.unsupportedTransferMessage, "another kind") }
        let requestID = try reader.read(requestIDBytes)
        return (reader, requestID)
    }

    /// The kind named by the head of `bytes`, nil when they do not start with this format's
    /// magic and version or name no kind this build knows.
    static func kind(of bytes: [UInt8]) -> Kind? {
        guard bytes.count >= headBytes, bytes.count <= maxMessageBytes, Array(bytes.prefix(magic.count)) == magic,
              bytes[4] == version else { return nil }
        return Kind(rawValue: bytes[5])
    }
}
