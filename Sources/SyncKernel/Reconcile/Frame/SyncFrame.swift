/// One `sync_delta` payload: the frames a device's siblings exchange to converge.
///
/// Invariants: every frame names the sender's account and schema; a replica decodes a frame
/// (bounded by `CBORLimits.frame`) with its own account, so one naming another account is
/// refused before its body is read, and refuses one of another wire version before acting on its
/// body (over a sealed relay the envelope gate has already checked the sender's certificate for
/// this account before the frame's bytes are parsed at all); the encoding is a
/// canonical CBOR map with a string `kind`, and decoding tolerates unknown keys and missing
/// optional fields (a newer or older peer) but refuses anything else malformed with a typed error.
/// `capabilities` is how a build announces frames beyond the spec's: a peer that lists
/// `sketchCapability` reads set-hash digests, `sketch_req` and `range_req`, and a build never sends
/// those to a peer that has not listed it (a spec-only build ignores the unknown `caps` key).
/// A frame is written with the compact header (`compactHeader`: one-letter keys, a kind code,
/// and an 8-byte account tag in place of the 32-byte account, `FrameKey`) only to a peer that
/// listed `compactCapability` or wrote one itself; every other frame, and every frame to a spec
/// peer, is written exactly as the spec's.
package struct SyncFrame: Sendable, Hashable {
    /// The payload variant every frame here travels as.
    package static let payloadType = "sync_delta"

    /// What the frame says.
    package enum Body: Sendable, Hashable {
        /// `state_digest`: the sender's encoded `StateDigest`. `probe` asks for the receiver's
        /// digest in reply even when the two already match; `changes` (set-hash layout only) are
        /// the sender's per-namespace item change counters, in name order, or empty.
        case stateDigest(digest: [UInt8], probe: Bool, changes: [UInt64] = [])
        /// `reconcile_req`.
        case reconcileRequest(ReconcileRequest)
        /// `reconcile_resp`.
        case reconcileResponse(ReconcileResponse)
        /// `heartbeat`: "I am listening"; siblings answer with their digest.
        case heartbeat
        /// `sketch_req`: the sender's first coded symbols of a namespace.
        case sketch(SketchRequest)
        /// `range_req`: trie nodes to compare and leaves listed (the sketch's fallback).
        case rangeCompare(RangeCompare)
        /// `push`: unasked, the rows and delete versions of keys the sender wrote since it and the
        /// receiver last held equal roots of the namespace (rows and tombstones only, in one part
        /// or several: `ReconcileResponse.remaining` says how many follow), with the sender's
        /// root of the namespace after all of them (its first `StateDigest.setHashRootBytes`
        /// bytes) and its change counter there, the same on every part. Sent only to a sibling
        /// that announced `SyncFrame.pushCapability`; always written against a device table
        /// (an empty one is left out).
        case push(ReconcileResponse, root: [UInt8], change: UInt64)
        /// `push_ack`: the answer to a push's last part, once the receiver applied it: its root of
        /// the namespace (`PushAnswer`: the push's own, or another given whole) and its change
        /// counter there; `following` says a push of the receiver's own writes to that namespace
        /// is due next.
        case pushAck(namespace: String, answer: PushAnswer, change: UInt64, following: Bool)

        /// The code a compact frame writes for the kind (stable: never reused or renumbered).
        package var kindCode: UInt64 {
            switch self {
            case .stateDigest: 1
            case .reconcileRequest: 2
            case .reconcileResponse: 3
            case .heartbeat: 4
            case .sketch: 5
            case .rangeCompare: 6
            case .push: 7
            case .pushAck: 8
            }
        }

        /// The wire `kind` string of a compact frame's kind code, nil for a code no kind has.
        package static func kind(code: UInt64) -> String? {
            switch code {
            case 1: "state_digest"
            case 2: "reconcile_req"
            case 3: "reconcile_resp"
            case 4: "heartbeat"
            case 5: "sketch_req"
            case 6: "range_req"
            case 7: "push"
            case 8: "push_ack"
            default: nil
            }
        }

        /// The wire `kind` string.
        package var kind: String {
            switch self {
            case .stateDigest: return "state_digest"
            case .reconcileRequest: return "reconcile_req"
            case .reconcileResponse: return "reconcile_resp"
            case .heartbeat: return "heartbeat"
            case .sketch: return "sketch_req"
            case .rangeCompare: return "range_req"
            case .push: return "push"
            case .pushAck: return "push_ack"
            }
        }
    }

    /// The sender's account fingerprint (its userIDHash), 32 bytes; in a compact frame decoded
    /// without an expected account, the `accountTagBytes`-byte tag it carries
    /// (`accountTag(of:)`), since the account itself is not on the wire.
    package let account: [UInt8]
    /// The sender's schema fingerprint.
    package let schema: SchemaFingerprint
    /// The frame's content.
    package let body: Body
    /// The optional frames and layouts the sender reads (sorted, no repeats).
    package let capabilities: [String]
    /// Whether a `reconcile_resp` or `push` writes its vectors against a `DeviceTable` (only to a
    /// peer that announced `sketchCapability`); read back from the frame's own `devices` key.
    package let compactVectors: Bool
    /// Whether the frame is written with the compact header (only to a peer that announced
    /// `compactCapability`); read back from the frame's own form.
    package let compactHeader: Bool
    /// The device that writes the frame, when both ends know it (a replica knows its own device
    /// and the sibling an envelope came from): a `reconcile_resp` against a `DeviceTable` then
    /// names it by a one-byte reference (`DeviceTable.senderIndex`) instead of a 32-byte table
    /// entry. Nil writes and reads no reference (a frame that holds one is then refused). Not
    /// compared: two frames with equal content are equal whoever carried them.
    package let sender: DeviceID?
    /// The namespace names of the schema both ends hold, when the writer knows them: a compact
    /// `push` or `push_ack` then names its namespace by position (`NamespacePositions`). Nil
    /// writes the name. Not compared, like `sender`.
    package let positions: NamespacePositions?
    /// The device the frame goes to, when both ends know it: a `push` then names it in its
    /// vectors by `DeviceTable.receiverIndex` instead of a 32-byte table entry. Not compared.
    package let receiver: DeviceID?
    /// The sender's current device epoch, announced (key `epoch`) to a sibling that reads
    /// `leanCapability` until it echoes it; nil for none (epoch 0 is never announced).
    package let epochAnnouncement: EpochAnnouncement?
    /// The echo of the epoch the writer holds for the frame's receiver (key `epoch_echo`,
    /// `EpochAnnouncement.echoBytes` bytes), sent once after an announcement; empty says the
    /// writer holds no single epoch of the receiver (it met an `epochIndex` it could not read),
    /// so the receiver announces again. Nil for none.
    package let epochEcho: [UInt8]?
    /// The sender's current epoch dimension when a `push` may name it by `DeviceTable.epochIndex`
    /// (the receiver echoed it, or this frame announces it); when decoding, the one the reader
    /// holds for the sender, or the frame's own announcement's. Not compared.
    package let senderEpoch: DeviceID?
    /// The sender's write dimension when a `push` writes delta rows over it (`DeltaVector`, only
    /// to a sibling that reads `leanCapability`); nil writes every row whole. Not compared.
    package let deltaDimension: DeviceID?
    /// Whether a compact frame leaves its account tag out (only to a sibling that announced
    /// `impliedAccountCapability`: its transport proves the account of every frame it hands on);
    /// read back from the frame's own form.
    package let omitsAccount: Bool

    /// The most bytes one symbol of a `sketch_req` takes on the wire: its zigzag count (at most
    /// `LEB128.maxBytes`), its key sum's length (2 bytes for `CodedSymbol.maxKeySumBytes`), the
    /// key sum and the 4-byte tag sum (`CodedSymbol.tagBytes`): 4,117 bytes.
    package static let maxSymbolBytes = LEB128.maxBytes + LEB128.byteCount(UInt64(CodedSymbol.maxKeySumBytes))
        + CodedSymbol.maxKeySumBytes + CodedSymbol.tagBytes

    /// Room for a frame's fields besides its largest one: account (34 bytes), schema (9), type,
    /// kind and their keys (under 40), at most 16 capabilities, the namespace name, a sketch's
    /// root (17) and the byte-string head of its symbols (5), with ample slack.
    package static let fieldBytes = 64 << 10

    /// The largest frame a build writes or reads, 16,928,768 bytes: the largest legitimate frame
    /// is a `sketch_req` at full capacity, `RatelessSketch.standardCapacity` (4,096) symbols of
    /// `maxSymbolBytes` each (16,863,232 bytes) plus `fieldBytes`. Every other kind stays below:
    /// a `reconcile_resp` carries at most `ReconcileResponse.rowBytesPerFrame` (4 MiB) of rows,
    /// tombstones, listings and wanted keys, or one row larger than that alone, and a row is at
    /// most `InspectedRow.maxRowBytes` (15 MiB); a `range_req` names at most
    /// `KernelStore.maxCompareNodes` (65,536) nodes of at most 159 bytes (10.4 MB); a
    /// `state_digest` is a digest of a few dozen bytes per namespace. `CBORLimits.frame` reads
    /// frames under this size (a test checks the two agree); one byte more is `limitExceeded`.
    package static let maxFrameBytes = RatelessSketch.standardCapacity * maxSymbolBytes + fieldBytes

    /// The capability of a build that reads set-hash digests (layout 3), `sketch_req` with
    /// sketch items of 32-bit tags (`SketchItem`), `range_req`, and positional rows against a
    /// device table with sender references. A build of the earlier 64-bit items, layout-2 digests
    /// and map rows announced "sketch1"; the two would misread each other's frames, so each takes
    /// the other for a spec peer and they meet in the spec's frames.
    package static let sketchCapability = "sketch2"

    /// The capability of a build that reads compact frames (`FrameKey.compactName`), announced
    /// with `sketchCapability`.
    package static let compactCapability = "compact1"

    /// The capability of a build that reads a `sketch_req` of more than
    /// `RatelessSketch.standardCapacity` symbols (up to `SketchRequest.maxSymbols`, from its
    /// persisted wide tier), announced with `sketchCapability`. A build without it refuses such a
    /// sketch, so none is sent to it.
    package static let wideCapability = "wide1"

    /// The capability of a build that reads `push` and `push_ack` (announced with
    /// `sketchCapability`): a build without it is never pushed to, and meets its siblings in
    /// digests. "push2" reads pushes of several parts, change counters as plain integers, a
    /// compact push or push_ack that names its namespace by position (`NamespacePositions`) and
    /// an acknowledgement that names the push it matches instead of repeating its root; a
    /// "push1" build read none of these, so the two never push to each other.
    package static let pushCapability = "push2"

    /// The capabilities a `.sketch` replica announces, in the order it lists them.
    package static let kernelCapabilities = [sketchCapability, compactCapability, wideCapability, pushCapability, leanCapability]

    /// The capability of a build that reads epoch announcements and echoes (`epochAnnouncement`,
    /// `epochEcho`), a push's `DeviceTable.epochIndex` and a push's delta rows (`DeltaVector`),
    /// announced with `pushCapability`. A build without it is sent none of these.
    package static let leanCapability = "lean1"

    /// The capability of a replica whose transport proves the account of every frame it hands
    /// on (`Replica`'s `transportAuthenticatesAccount`: a sealed session or envelope under the
    /// account's keys): compact frames to it leave the account tag out (`omitsAccount`). Announced
    /// only by such a replica, beside `kernelCapabilities`.
    package static let impliedAccountCapability = "acct1"

    /// The bytes of the account tag a compact frame carries.
    package static let accountTagBytes = 8

    /// The account tag a compact frame carries for `account`: the first `accountTagBytes` bytes
    /// of SHA-256 under the domain `synckernel.frame.account`. It routes, it does not
    /// authenticate (the sealed envelope layer does): a frame of another account, misrouted or
    /// replayed across accounts, is refused (`foreignAccount`) unless 64 bits collide.
    package static func accountTag(of account: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(domain: Array("synckernel.frame.account".utf8), account).prefix(accountTagBytes))
    }

    /// Creates a frame.
    package init(account: [UInt8], schema: SchemaFingerprint, body: Body, capabilities: [String] = [],
                 compactVectors: Bool = false, compactHeader: Bool = false, sender: DeviceID? = nil,
                 positions: NamespacePositions? = nil, receiver: DeviceID? = nil, epochAnnouncement: EpochAnnouncement? = nil,
                 epochEcho: [UInt8]? = nil, senderEpoch: DeviceID? = nil, deltaDimension: DeviceID? = nil,
                 omitsAccount: Bool = false) {
        self.account = account
        self.schema = schema
        self.body = body
        self.capabilities = Array(Set(capabilities)).sorted()
        switch body {
        case .reconcileResponse: self.compactVectors = compactVectors
        case .push: self.compactVectors = true
        default: self.compactVectors = false
        }
        self.compactHeader = compactHeader
        self.sender = sender
        self.positions = positions
        self.receiver = receiver
        self.epochAnnouncement = epochAnnouncement
        self.epochEcho = epochEcho
        self.senderEpoch = senderEpoch
        self.deltaDimension = deltaDimension
        self.omitsAccount = compactHeader && omitsAccount
    }

    package static func == (lhs: SyncFrame, rhs: SyncFrame) -> Bool {
        lhs.account == rhs.account && lhs.schema == rhs.schema && lhs.body == rhs.body && lhs.capabilities == rhs.capabilities
            && lhs.compactVectors == rhs.compactVectors && lhs.compactHeader == rhs.compactHeader
            && lhs.epochAnnouncement == rhs.epochAnnouncement && lhs.epochEcho == rhs.epochEcho && lhs.omitsAccount == rhs.omitsAccount
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(account)
        hasher.combine(schema)
        hasher.combine(body)
        hasher.combine(capabilities)
        hasher.combine(compactVectors)
        hasher.combine(compactHeader)
        hasher.combine(epochAnnouncement)
        hasher.combine(epochEcho)
        hasher.combine(omitsAccount)
    }
}
