/// One `sync_delta` payload: the frames a device's siblings exchange to converge.
///
/// Invariants: every frame names the sender's account and schema; a replica decodes the whole
/// frame (bounded by `CBORLimits.frame`) and then refuses one from another account or another
/// wire version before acting on its body; the encoding is a
/// canonical CBOR map with a string `kind`, and decoding tolerates unknown keys and missing
/// optional fields (a newer or older peer) but refuses anything else malformed with a typed error.
package struct SyncFrame: Sendable, Hashable {
    /// The payload variant every frame here travels as.
    package static let payloadType = "sync_delta"

    /// What the frame says.
    package enum Body: Sendable, Hashable {
        /// `state_digest`: the sender's encoded `StateDigest`. `probe` asks for the receiver's
        /// digest in reply even when the two already match.
        case stateDigest(digest: [UInt8], probe: Bool)
        /// `reconcile_req`.
        case reconcileRequest(ReconcileRequest)
        /// `reconcile_resp`.
        case reconcileResponse(ReconcileResponse)
        /// `heartbeat`: "I am listening"; siblings answer with their digest.
        case heartbeat

        /// The wire `kind` string.
        package var kind: String {
            switch self {
            case .stateDigest: return "state_digest"
            case .reconcileRequest: return "reconcile_req"
            case .reconcileResponse: return "reconcile_resp"
            case .heartbeat: return "heartbeat"
            }
        }
    }

    /// The sender's account fingerprint (its userIDHash), 32 bytes.
    package let account: [UInt8]
    /// The sender's schema fingerprint.
    package let schema: SchemaFingerprint
    /// The frame's content.
    package let body: Body

    /// Creates a frame.
    package init(account: [UInt8], schema: SchemaFingerprint, body: Body) {
        self.account = account
        self.schema = schema
        self.body = body
    }
}
