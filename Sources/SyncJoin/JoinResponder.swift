import SyncEnvelope
import SyncKernel

/// A sibling's side of the join protocol: it runs the guard ladder on every message from its
/// account's discovery subject, acknowledges a request that passes, asks its user (an event and
/// `pendingApprovals()`), and on `approve` issues the new device's certificate, records it and
/// boxes the grant back; on `reject` boxes back a rejection.
///
/// Invariants: nothing is sent for a dropped request (silent drops, each counted and reported);
/// an accepted request is acknowledged (its `SignInAck` carries this device's family) before
/// `approvalRequested` is reported; at most `maxPending` requests wait, each until its
/// requester's deadline by this device's clock (then `approvalExpired`, nothing sent); a
/// rejection, an expiry and a drop write nothing; an approval records the new device's
/// certificate in this directory (so this device's roster admits its frames) before the grant is
/// published, and publishes nothing when that fails; every reply is boxed from the account's
/// discovery key to the request's ephemeral key under a fresh nonce, so only the requester opens
/// it; calls are serialised by the actor.
public actor JoinResponder {
    /// The subject to subscribe to and hand every message of to `deliver`.
    public nonisolated let discoverySubject: JoinSubject
    /// The most requests waiting for a decision at once.
    public nonisolated let maxPending: Int
    /// How long a certificate issued to a new device is valid, in seconds.
    public nonisolated let certificateValiditySeconds: Int64

    private let gate: SignInGate
    private let directory: AccountDirectory
    private let account: AccountMaterial
    private let signInKey: SignInKey?
    private let discovery: DiscoveryKeys
    private let family: DeviceFamily
    private let carrier: any JoinCarrier
    private let clock: any WallClock
    private let entropy: EntropySource
    private let onEvent: @Sendable (JoinResponderEvent) -> Void
    private var pending: [ApprovalID: (approval: PendingApproval, request: SignInRequest)] = [:]
    /// Requests dropped so far, by reason (the ladder's and `approvalsFull`).
    public private(set) var dropCounts: [SignInDropReason: Int] = [:]

    /// The responder of the device whose account directory is `directory`: it pins the
    /// directory's sign-in verifier and holds a certificate of its identity (a directory without
    /// `sign-in.key` pins none and drops every request as `noPinnedVerifier`), records request
    /// ids in `replay` (open it with `SignInGate.replayWindow`), acknowledges as `family`,
    /// publishes through `carrier`, reads time from `clock` and draws ids and nonces from
    /// `entropy`. Throws what reading the directory throws.
    public init(directory: AccountDirectory, replay: sending ReplayGuard, carrier: any JoinCarrier,
                family: DeviceFamily = .thisMachine, clock: any WallClock = SystemWallClock(), maxPending: Int = 8,
                certificateValiditySeconds: Int64 = 365 * 86_400, entropy: sending EntropySource = .system,
                onEvent: @escaping @Sendable (JoinResponderEvent) -> Void) throws(SyncKernelError) {
        guard maxPending > 0, certificateValiditySeconds > 0 else {
            throw SyncKernelError(.limitExceeded, "a responder keeps at least one approval and issues certificates valid a while")
        }
        let account = try directory.account()
        let signInKey = try directory.signInKeyIfPresent()
        let ownCertificate = try signInKey.map { key throws(SyncKernelError) in try key.issue(expiresAt: Int64.max / 1_000) }
        gate = try SignInGate(accountSeed: account.seed, verifier: signInKey?.verifierPublicKey, ownCertificate: ownCertificate,
                              replay: replay)
        discovery = try DiscoveryKeys(accountSeed: account.seed)
        discoverySubject = discovery.subject
        self.directory = directory
        self.account = account
        self.signInKey = signInKey
        self.family = family
        self.carrier = carrier
        self.clock = clock
        self.maxPending = maxPending
        self.certificateValiditySeconds = certificateValiditySeconds
        self.entropy = entropy
        self.onEvent = onEvent
    }

    /// Runs the ladder on one message from the discovery subject; when it passes, acknowledges
    /// it, keeps it for a decision and reports `approvalRequested`. Returns the verdict.
    @discardableResult
    public func deliver(_ message: [UInt8]) async -> SignInVerdict {
        let now = clock.millisecondsSince1970
        expire(now: now)
        var verdict = gate.open(message, now: now)
        if case .accepted = verdict, pending.count >= maxPending { verdict = .dropped(.approvalsFull) }
        switch verdict {
        case .dropped(let reason):
            dropCounts[reason, default: 0] += 1
            onEvent(.requestDropped(reason: reason, bytes: message.count))
        case .accepted(let request):
            var id = ApprovalID(bytes: entropy.bytes(ApprovalID.byteCount))
            while pending[id] != nil { id = ApprovalID(bytes: entropy.bytes(ApprovalID.byteCount)) }
            let approval = PendingApproval(id: id, deviceName: request.deviceName, device: request.device, requestedAt: now,
                                           deadline: request.deadline)
            pending[id] = (approval, request)
            await send(.acknowledged(SignInAck(family: family)), answering: request)
            onEvent(.approvalRequested(approval))
        }
        return verdict
    }

    /// The requests waiting for a decision, oldest first (expired ones are dropped first).
    public func pendingApprovals() -> [PendingApproval] {
        expire(now: clock.millisecondsSince1970)
        return pending.values.map(\.approval).sorted { ($0.requestedAt, $0.id) < ($1.requestedAt, $1.id) }
    }

    /// Approves the request `id`: issues the new device's certificate, records it in this
    /// directory and publishes the grant. Returns the certificate. `approvalNotPending` for an id
    /// that is not waiting (never made, decided, expired); `keyFileUnavailable` when a device of
    /// the requested name or with the requested keys exists here (the request stays pending:
    /// reject it); nothing is sent and nothing recorded when this throws.
    @discardableResult
    public func approve(_ id: ApprovalID) async throws(SyncKernelError) -> SenderCertificate {
        let now = clock.millisecondsSince1970
        expire(now: now)
        guard let request = pending[id]?.request else {
            throw SyncKernelError(.approvalNotPending, "no sign-in request waits under this id")
        }
        guard let signInKey else { throw SyncKernelError(.keyMaterialMissing, "this device has no sign-in key") }
        let certificate = try account.issue(device: request.device, envelopeKey: request.envelopeKey,
                                            expiresAt: now / 1_000 + certificateValiditySeconds)
        let siblings = try directory.certificatesByName()
        guard siblings[request.deviceName] == nil, !siblings.values.contains(where: { $0.device == request.device }) else {
            throw SyncKernelError(.keyFileUnavailable, "a device of this name or with these keys exists")
        }
        let grant = try SignInGrant(account: account, signInKey: signInKey, certificate: certificate, siblings: siblings)
        guard let sealed = seal(.granted(grant), answering: request) else {
            throw SyncKernelError(.keyMaterialMissing, "the grant could not be sealed")
        }
        try directory.addSiblingCertificate(certificate, name: request.deviceName)
        pending[id] = nil
        await carrier.publish(sealed, to: request.replySubject)
        onEvent(.approved(id: id, device: request.device, name: request.deviceName))
        return certificate
    }

    /// Rejects the request `id`: publishes a rejection, records nothing. `approvalNotPending`
    /// for an id that is not waiting.
    public func reject(_ id: ApprovalID) async throws(SyncKernelError) {
        expire(now: clock.millisecondsSince1970)
        guard let request = pending.removeValue(forKey: id)?.request else {
            throw SyncKernelError(.approvalNotPending, "no sign-in request waits under this id")
        }
        await send(.rejected, answering: request)
        onEvent(.rejected(id: id))
    }

    /// Drops the approvals whose requester stopped waiting (reporting each); a host may call it
    /// on a timer, and every other call does it first.
    public func tick() {
        expire(now: clock.millisecondsSince1970)
    }

    /// Drops every pending approval whose deadline has passed at `now`.
    private func expire(now: Int64) {
        let due = pending.values.filter { $0.approval.deadline <= now }.map(\.approval.id).sorted()
        for id in due {
            pending[id] = nil
            onEvent(.approvalExpired(id: id))
        }
    }

    /// `reply` boxed to `request`'s ephemeral key under a fresh nonce; nil when a key has the
    /// wrong size (a parsed request's never has).
    private func seal(_ reply: JoinReply, answering request: SignInRequest) -> [UInt8]? {
        reply.sealed(requestID: request.requestID, to: request.ephemeralKey, from: discovery,
                     nonce: entropy.bytes(JoinCrypto.nonceBytes))
    }

    /// Boxes `reply` to `request` and publishes it on its reply subject.
    private func send(_ reply: JoinReply, answering request: SignInRequest) async {
        guard let sealed = seal(reply, answering: request) else { return }
        await carrier.publish(sealed, to: request.replySubject)
    }
}
