import SyncEnvelope
import SyncKernel

/// A sibling's side of the join protocol: it runs the guard ladder on every message from its
/// account's discovery subject, checks a request that passes against the sign-in ledger and the
/// bounds on pending approvals, acknowledges it, asks its user (an event and
/// `pendingApprovals()`), and on `approve` issues the new device's certificate, records it and
/// the credential's spend and boxes the grant back; on `reject` boxes back a rejection. Every
/// decision is told to the other members in a sealed notice (`JoinNotice`), which withdraws
/// their prompts of the request and carries this device's ledger.
///
/// Invariants: nothing is sent for a message that fails an authenticity rung (silent drops,
/// each counted and reported); a request that passed them all is answered: refused (sealed,
/// `SignInRefusal`) when the ledger marks its credential spent or revoked, when
/// `maxPendingPerCredential` requests with its credential or `maxPending` in all already wait,
/// or else acknowledged (its `SignInAck` carries this device's family) before
/// `approvalRequested` is reported; each waits until its requester's deadline by this device's
/// clock (then `approvalExpired`, nothing sent), until another member's notice decides it or
/// spends or revokes its credential (`approvalWithdrawn`), or until this device's user decides;
/// a credential admits at most one device through this device: an approval records it spent in
/// the ledger before the grant is sent, refuses the other requests waiting with it, and no
/// later request with it is asked about; a rejection, an expiry and a drop record nothing; an
/// approval records the new device's certificate in this directory (so this device's roster
/// admits its frames) before the grant is published, and publishes nothing when that fails;
/// every reply is boxed from the account's discovery key to the request's ephemeral key under a
/// fresh nonce, so only the requester opens it; calls are serialised by the actor.
public actor JoinResponder {
    /// The thread the actor runs on (its seen set and the account directory's files block), so no blocking call holds a thread of the
    /// cooperative pool; callers suspend meanwhile.
    private nonisolated let executor = SerialThreadExecutor(name: "synckernel.join-responder")

    /// The actor's executor: a thread of its own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// The subject to subscribe to and hand every message of to `deliver`.
    public nonisolated let discoverySubject: JoinSubject
    /// The most requests waiting for a decision at once.
    public nonisolated let maxPending: Int
    /// The most requests with one credential waiting for a decision at once.
    public nonisolated let maxPendingPerCredential: Int
    /// This device's name: what its notices and its prompts name.
    public nonisolated let name: String
    /// The shortest time between two ledger notices this device sends to teach another member.
    public nonisolated let ledgerAnswerIntervalMillis: Int64 = 5_000
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
    /// The ledger as this device last told the others (nil: not yet).
    private var toldLedger: SignInLedger?
    /// Whether a member's notice showed it knows less than this device's ledger.
    private var ledgerOwed = false
    private var ledgerSentAt = Int64.min
    /// Requests dropped so far, by reason (the ladder's, the ledger's and the bounds').
    public private(set) var dropCounts: [SignInDropReason: Int] = [:]

    /// The responder of the device named `name` whose account directory is `directory`: it pins the
    /// directory's sign-in verifier and holds a certificate of its identity (a directory without
    /// `sign-in.key` pins none and drops every request as `noPinnedVerifier`), records request
    /// ids in `replay` (open it with `SignInGate.replayWindow`), acknowledges as `family`,
    /// publishes through `carrier`, reads time from `clock` and draws ids and nonces from
    /// `entropy`. Throws what reading the directory throws, `keyFileUnavailable` for a name that
    /// is not a device name.
    public init(directory: AccountDirectory, name: String, replay: sending ReplayGuard, carrier: any JoinCarrier,
                family: DeviceFamily = .thisMachine, clock: any WallClock = SystemWallClock(), maxPending: Int = 8,
                maxPendingPerCredential: Int = 2, certificateValiditySeconds: Int64 = 365 * 86_400,
                entropy: sending EntropySource = .system,
                onEvent: @escaping @Sendable (JoinResponderEvent) -> Void) throws(SyncKernelError) {
        guard maxPending > 0, maxPendingPerCredential > 0, certificateValiditySeconds > 0 else {
            throw SyncKernelError(.limitExceeded, "a responder keeps at least one approval and issues certificates valid a while")
        }
        guard AccountDirectory.isValidDeviceName(name) else {
            throw SyncKernelError(.keyFileUnavailable, "a device name is 1 to 64 letters, digits, - or _")
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
        self.maxPendingPerCredential = maxPendingPerCredential
        self.name = name
        self.certificateValiditySeconds = certificateValiditySeconds
        self.entropy = entropy
        self.onEvent = onEvent
    }

    /// Handles one message from the discovery subject: a member's notice is opened and applied;
    /// a request runs the ladder and, when it passes, is refused or acknowledged, kept for a
    /// decision and reported as `approvalRequested`. Returns the verdict.
    @discardableResult
    public func deliver(_ message: [UInt8]) async -> SignInVerdict {
        let now = clock.millisecondsSince1970
        expire(now: now)
        if message.first == JoinNotice.tag { return await receiveNotice(message, now: now) }
        let request: SignInRequest
        let verdict = gate.open(message, now: now)
        _ = gate.drainDrops()
        switch verdict {
        case .accepted(let accepted): request = accepted
        case .dropped(let reason): return drop(reason, bytes: message.count)
        case .notice(let kind): return .notice(kind)
        }
        guard let credential = CredentialID(certificate: request.certificate),
              let ledger = try? directory.signInLedger() else { return drop(.ledgerUnavailable, bytes: message.count) }
        let waiting = pending.values.filter { $0.approval.credential == credential }.count
        let refusal: SignInRefusal? = switch ledger.mark(of: credential) {
        case .spent: .spent
        case .revoked: .revoked
        case nil: waiting >= maxPendingPerCredential || pending.count >= maxPending ? .busy : nil
        }
        if let refusal {
            await send(.refused(refusal), answering: request)
            let reason = refusal == .busy && waiting < maxPendingPerCredential ? SignInDropReason.approvalsFull : refusal.dropReason
            return drop(reason, bytes: message.count)
        }
        var id = ApprovalID(bytes: entropy.bytes(ApprovalID.byteCount))
        while pending[id] != nil { id = ApprovalID(bytes: entropy.bytes(ApprovalID.byteCount)) }
        let approval = PendingApproval(id: id, deviceName: request.deviceName, device: request.device, credential: credential,
                                       requestedAt: now, deadline: request.deadline)
        pending[id] = (approval, request)
        await send(.acknowledged(SignInAck(family: family)), answering: request)
        onEvent(.approvalRequested(approval))
        return .accepted(request)
    }

    /// Counts and reports a dropped message; returns its verdict.
    private func drop(_ reason: SignInDropReason, bytes: Int) -> SignInVerdict {
        dropCounts[reason, default: 0] += 1
        onEvent(.requestDropped(reason: reason, bytes: bytes))
        return .dropped(reason)
    }

    /// Opens and applies a member's notice: withdraws the prompt of the request it decided,
    /// merges its ledger into this device's (withdrawing and refusing what the ledger now marks)
    /// and owes the sender a ledger notice when this device knows more.
    private func receiveNotice(_ message: [UInt8], now: Int64) async -> SignInVerdict {
        guard let notice = JoinNotice.open(message, with: discovery) else { return drop(.badNotice, bytes: message.count) }
        if notice.kind != .ledger,
           let decided = pending.first(where: { Sodium.constantTimeEqual($0.value.request.requestID, notice.requestID) })?.key {
            pending[decided] = nil
            let cause: ApprovalWithdrawal = notice.kind == .approved ? .approvedElsewhere(by: notice.sender)
                : .rejectedElsewhere(by: notice.sender)
            onEvent(.approvalWithdrawn(id: decided, cause: cause))
        }
        let theirs = notice.ledger.pruned(atMillis: now)
        if var ledger = try? directory.signInLedger().pruned(atMillis: now) {
            let learned = ledger.merge(theirs)
            if learned > 0, (try? directory.writeSignInLedger(ledger)) != nil { onEvent(.ledgerLearned(entries: learned)) }
            if ledger.teaches(theirs) { ledgerOwed = true }
            await enforce(ledger)
        }
        await tellLedgerIfDue(now: now)
        return .notice(notice.kind)
    }

    /// Withdraws every pending request whose credential `ledger` marks, refusing each.
    private func enforce(_ ledger: SignInLedger) async {
        let marked = pending.values.compactMap { entry in ledger.mark(of: entry.approval.credential).map { (entry, $0) } }
        for (entry, mark) in marked.sorted(by: { $0.0.approval.id < $1.0.approval.id }) {
            pending[entry.approval.id] = nil
            await send(.refused(mark == .spent ? .spent : .revoked), answering: entry.request)
            onEvent(.approvalWithdrawn(id: entry.approval.id, cause: mark == .spent ? .credentialSpent : .credentialRevoked))
        }
    }

    /// Publishes a ledger notice now (a host calls it when its discovery connection connects,
    /// so the members online learn what this device knows and answer with what they know).
    public func announceLedger() async {
        let now = clock.millisecondsSince1970
        guard let ledger = try? directory.signInLedger().pruned(atMillis: now) else { return }
        await tell(.ledger, requestID: [UInt8](repeating: 0, count: SignInRequest.requestIDBytes), ledger: ledger, now: now)
    }

    /// Publishes the ledger when a member showed it knows less, or the ledger file holds
    /// something this device has not told yet (a revocation by the command line), at most once
    /// every `ledgerAnswerIntervalMillis`.
    private func tellLedgerIfDue(now: Int64) async {
        guard let ledger = try? directory.signInLedger().pruned(atMillis: now) else { return }
        if ledger.teaches(toldLedger ?? SignInLedger()) { ledgerOwed = true }
        let (next, overflow) = ledgerSentAt.addingReportingOverflow(ledgerAnswerIntervalMillis)
        guard ledgerOwed, overflow || now >= next else { return }
        await tell(.ledger, requestID: [UInt8](repeating: 0, count: SignInRequest.requestIDBytes), ledger: ledger, now: now)
    }

    /// Publishes a notice of `kind` about `requestID` carrying `ledger` on the discovery subject.
    private func tell(_ kind: JoinNotice.Kind, requestID: [UInt8], ledger: SignInLedger, now: Int64) async {
        guard let notice = JoinNotice(kind: kind, requestID: requestID, sender: name, ledger: ledger),
              let sealed = notice.sealed(with: discovery, nonce: entropy.bytes(JoinCrypto.nonceBytes)) else { return }
        toldLedger = ledger
        ledgerOwed = false
        ledgerSentAt = now
        await carrier.publish(sealed, to: discoverySubject)
    }

    /// The requests waiting for a decision, oldest first (expired ones are dropped first).
    public func pendingApprovals() -> [PendingApproval] {
        expire(now: clock.millisecondsSince1970)
        return pending.values.map(\.approval).sorted { ($0.requestedAt, $0.id) < ($1.requestedAt, $1.id) }
    }

    /// Approves the request `id`: issues the new device's certificate, records the credential
    /// spent in the ledger and the certificate in this directory, publishes the grant, then the
    /// notice `approved` (with the ledger) for the other members, and refuses the other requests
    /// waiting with the same credential. Returns the certificate. `JoinError` `approvalNotPending` for an id
    /// that is not waiting (never made, decided, expired, withdrawn; also when the ledger marks
    /// its credential by now: the request is then refused); `keyFileUnavailable` when a device of
    /// the requested name or with the requested keys exists here (the request stays pending:
    /// reject it) or a file cannot be written; nothing is sent and nothing recorded when this
    /// throws.
    @discardableResult
    public func approve(_ id: ApprovalID) async throws -> SenderCertificate {
        let now = clock.millisecondsSince1970
        expire(now: now)
        guard let entry = pending[id] else {
            throw JoinError(.approvalNotPending, "no sign-in request waits under this id")
        }
        let request = entry.request
        guard let signInKey else { throw SyncKernelError(.keyMaterialMissing, "this device has no sign-in key") }
        let before = try directory.signInLedger().pruned(atMillis: now)
        guard before.mark(of: entry.approval.credential) == nil else {
            await enforce(before)
            throw JoinError(.approvalNotPending, "the request's credential was spent or revoked meanwhile")
        }
        var ledger = before
        ledger.record(SignInLedger.Entry(credential: entry.approval.credential, expiresAt: request.certificate.expiresAt,
                                         mark: .spent))
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
        try directory.writeSignInLedger(ledger)
        do throws(SyncKernelError) {
            try directory.addSiblingCertificate(certificate, name: request.deviceName)
        } catch {
            try? directory.writeSignInLedger(before)
            throw error
        }
        pending[id] = nil
        await carrier.publish(sealed, to: request.replySubject)
        onEvent(.approved(id: id, device: request.device, name: request.deviceName))
        await tell(.approved, requestID: request.requestID, ledger: ledger, now: now)
        await enforce(ledger)
        return certificate
    }

    /// Rejects the request `id`: publishes a rejection, then the notice `rejected` for the other
    /// members; records nothing. `JoinError` `approvalNotPending` for an id that is not waiting.
    public func reject(_ id: ApprovalID) async throws(JoinError) {
        let now = clock.millisecondsSince1970
        expire(now: now)
        guard let request = pending.removeValue(forKey: id)?.request else {
            throw JoinError(.approvalNotPending, "no sign-in request waits under this id")
        }
        await send(.rejected, answering: request)
        onEvent(.rejected(id: id))
        let ledger = (try? directory.signInLedger().pruned(atMillis: now)) ?? SignInLedger()
        await tell(.rejected, requestID: request.requestID, ledger: ledger, now: now)
    }

    /// Drops the approvals whose requester stopped waiting (reporting each), applies the ledger
    /// file as it is now (a revocation written by the command line withdraws and refuses the
    /// requests of its credential) and publishes the ledger when it is due; a host calls it on a
    /// timer, and every other call expires first.
    public func tick() async {
        let now = clock.millisecondsSince1970
        expire(now: now)
        if let ledger = try? directory.signInLedger() { await enforce(ledger) }
        await tellLedgerIfDue(now: now)
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
