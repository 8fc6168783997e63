import SyncEnvelope
import SyncKernel

/// A new device's side of the join protocol: it makes its own device keys and an ephemeral key,
/// seals a sign-in request to the account's discovery key, re-sends it until a sibling
/// acknowledges, waits for the decision, and on a valid grant writes the account directory whole;
/// it ends granted, rejected, timed out, or failed to store.
///
/// A host subscribes to `replySubject` *before* `start()` (a fast acknowledgement must find a
/// listener), hands every message there to `deliver`, and either calls `outcome()`, which drives
/// the timers itself and returns the joined account or throws, or drives `tick()` at
/// `nextDeadline` on its own.
///
/// Invariants: the state only moves forward (`JoinState`); the request goes out at most
/// `policy.maxSends` times, `policy.resendIntervalMillis` apart, only until a sibling
/// acknowledges, each time sealed afresh with its own timestamp and the same request id and
/// reply subject; without an acknowledgement the wait ends one interval after the last send,
/// with one at the deadline (`policy.decisionWaitMillis` after the first send), never later; the
/// remaining time is reported (`waiting`) when the wait starts, at the acknowledgement and then
/// every `policy.countdownIntervalMillis`; a
/// reply is acted on only when it opens with this request's ephemeral key and the account's
/// discovery key, names this request and, for a grant, holds together
/// (`SignInGrant.isValid`), and every other reply is dropped, counted and reported, changing
/// nothing; a refusal ends the wait (a `busy` one only while no sibling acknowledged: after an
/// acknowledgement that sibling's user is still asked); the account directory is written (all files or none) before the state becomes
/// `granted`, and nothing at all is written on any other outcome; the device's and the
/// ephemeral secret keys never leave the actor except into the account directory's key file.
public actor JoinRequester {
    /// The thread the actor runs on (writing the account directory blocks), so no blocking call holds a thread of the
    /// cooperative pool; callers suspend meanwhile.
    private nonisolated let executor = SerialThreadExecutor(name: "synckernel.join-requester")

    /// The actor's executor: a thread of its own.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// The subject to subscribe to, before `start()`, and hand every message of to `deliver`.
    public nonisolated let replySubject: JoinSubject
    /// The subject the request is published on: the account's discovery subject.
    public nonisolated let discoverySubject: JoinSubject
    /// The device this process becomes (its signing public key).
    public nonisolated let device: DeviceID
    /// The device's name in the account directory.
    public nonisolated let deviceName: String
    /// The re-send and wait policy.
    public nonisolated let policy: JoinPolicy
    /// The longest `outcome()` sleeps before looking at the state again.
    public nonisolated let maxSleepMillis: Int64 = 100

    private let credential: SignInCredential
    private let directory: AccountDirectory
    private let keys: DeviceKeys
    private let ephemeralSecret: [UInt8]
    private let ephemeralKey: [UInt8]
    private let requestID: [UInt8]
    private let replyToken: [UInt8]
    private let carrier: any JoinCarrier
    private let clock: any JoinClock
    private let entropy: EntropySource
    private let onEvent: @Sendable (JoinRequesterEvent) -> Void
    /// Where the device stands.
    public private(set) var state: JoinState = .ready
    /// Replies dropped so far, by reason.
    public private(set) var dropCounts: [JoinReplyDropReason: Int] = [:]
    private var lastRequest: SignInRequest?
    private var lastSentAt: Int64 = 0
    private var deadline: Int64 = 0
    private var nextCountdownAt: Int64 = 0

    /// A device named `name` asking to join the account of `credential`, to be written into
    /// `directory` (missing or an empty folder), publishing through `carrier`, on `clock`, under
    /// `policy`, drawing its keys from `entropy`. Nothing is sent until `start()`.
    /// `keyFileUnavailable` for a name that is not a valid device name or a directory that is not
    /// free; `invalidCertificate` for a credential that has expired at `clock`; `limitExceeded`
    /// for a policy that breaks its invariants.
    public init(credential: SignInCredential, directory: AccountDirectory, name: String, carrier: any JoinCarrier,
                clock: any JoinClock = SystemJoinClock(), policy: JoinPolicy = JoinPolicy(),
                entropy: sending EntropySource = .system,
                onEvent: @escaping @Sendable (JoinRequesterEvent) -> Void) throws(SyncKernelError) {
        guard AccountDirectory.isValidDeviceName(name) else {
            throw SyncKernelError(.keyFileUnavailable, "a device name is 1 to 64 letters, digits, - or _")
        }
        guard directory.isFreeForJoin else { throw SyncKernelError(.keyFileUnavailable, "the account directory exists and is not empty") }
        guard !credential.certificate.isExpired(atMillis: clock.millisecondsSince1970) else {
            throw SyncKernelError(.invalidCertificate, "the sign-in certificate has expired")
        }
        self.policy = try policy.validated()
        keys = try DeviceKeys.generate(entropy: entropy)
        ephemeralSecret = entropy.bytes(Sodium.keyBytes)
        requestID = entropy.bytes(SignInRequest.requestIDBytes)
        replyToken = entropy.bytes(JoinSubject.tokenBytes)
        guard let ephemeralKey = Sodium.envelopePublicKey(secretKey: ephemeralSecret),
              let replySubject = JoinSubject.reply(token: replyToken) else {
            throw SyncKernelError(.keyMaterialMissing, "the entropy source gave a key of the wrong size")
        }
        self.ephemeralKey = ephemeralKey
        self.replySubject = replySubject
        discoverySubject = credential.discoverySubject
        device = keys.device
        deviceName = name
        self.credential = credential
        self.directory = directory
        self.carrier = carrier
        self.clock = clock
        self.entropy = entropy
        self.onEvent = onEvent
    }

    /// Sends the request for the first time (nothing when already started).
    public func start() async {
        guard state == .ready else { return }
        let now = clock.millisecondsSince1970
        let (deadline, overflow) = now.addingReportingOverflow(policy.decisionWaitMillis)
        self.deadline = overflow ? Int64.max : deadline
        await send(attempt: 1, now: now)
        countDown(now: now)
    }

    /// Milliseconds from `now` until the wait ends without a decision, as it stands: the end of
    /// the re-sends while no sibling acknowledged, else the deadline.
    public func remainingMillis(at now: Int64) -> Int64 {
        switch state {
        case .requesting(let sends):
            let (span, overflow) = Int64(policy.maxSends - sends + 1).multipliedReportingOverflow(by: policy.resendIntervalMillis)
            return max(0, min(overflow ? Int64.max : lastSentAt + span, deadline) - now)
        case .acknowledged:
            return max(0, deadline - now)
        case .ready, .granted, .rejected, .refused, .timedOut, .failed:
            return 0
        }
    }

    /// Reports the remaining wait and schedules the next report.
    private func countDown(now: Int64) {
        guard !state.isFinished else { return }
        let acknowledged = if case .acknowledged = state { true } else { false }
        let remaining = remainingMillis(at: now)
        onEvent(.waiting(remainingSeconds: Int((remaining + 999) / 1_000), acknowledged: acknowledged))
        nextCountdownAt = now + policy.countdownIntervalMillis
    }

    /// When `tick()` next has something to do (a re-send or the end of the wait); nil when
    /// nothing is scheduled (not started, or finished).
    public var nextDeadline: Int64? {
        switch state {
        case .requesting: min(lastSentAt + policy.resendIntervalMillis, deadline, nextCountdownAt)
        case .acknowledged: min(deadline, nextCountdownAt)
        case .ready, .granted, .rejected, .refused, .timedOut, .failed: nil
        }
    }

    /// Runs what is due at the clock's time: a re-send, the end of the wait, or a countdown report.
    public func tick() async {
        await advance()
        let now = clock.millisecondsSince1970
        if !state.isFinished, now >= nextCountdownAt { countDown(now: now) }
    }

    /// A re-send, or the end of the wait, when due.
    private func advance() async {
        let now = clock.millisecondsSince1970
        switch state {
        case .requesting(let sends):
            if now >= deadline {
                finish(.timedOut(acknowledged: false))
            } else if now >= lastSentAt + policy.resendIntervalMillis {
                if sends < policy.maxSends { await send(attempt: sends + 1, now: now) } else { finish(.timedOut(acknowledged: false)) }
            }
        case .acknowledged:
            if now >= deadline { finish(.timedOut(acknowledged: true)) }
        case .ready, .granted, .rejected, .refused, .timedOut, .failed:
            return
        }
    }

    /// Handles one message from the reply subject (after running whatever was due, so a reply
    /// that comes after the wait ended is late).
    public func deliver(_ message: [UInt8]) async {
        await tick()
        guard !state.isFinished else { return drop(.afterOutcome, bytes: message.count) }
        switch JoinReply.open(message, requestID: requestID, discoveryKey: credential.discoveryKey, ephemeralSecret: ephemeralSecret) {
        case .dropped(let reason):
            drop(reason, bytes: message.count)
        case .opened(.acknowledged(let ack)):
            guard case .requesting = state else { return }
            state = .acknowledged(ack.family)
            onEvent(.acknowledged(ack.family))
            countDown(now: clock.millisecondsSince1970)
        case .opened(.rejected):
            finish(.rejected)
        case .opened(.refused(let refusal)):
            // Another sibling acknowledged: its user is asked, whatever a full one says.
            if refusal == .busy, case .acknowledged = state { return }
            finish(.refused(refusal))
        case .opened(.granted(let grant)):
            guard let request = lastRequest, grant.isValid(for: request, credential: credential, now: clock.millisecondsSince1970) else {
                return drop(.invalidGrant, bytes: message.count)
            }
            do throws(SyncKernelError) {
                try directory.install(grant, name: deviceName, keys: keys)
                finish(.granted(JoinedAccount(directoryPath: directory.path, name: deviceName, device: device,
                                              account: grant.accountHandle)))
            } catch {
                finish(.failed(error))
            }
        }
    }

    /// Starts (when not started), drives the re-sends and the wait on the clock until the
    /// outcome, and returns the joined account. Throws `joinRejected` when a sibling's user
    /// refused, `joinRefused` when a sibling refused without asking (the detail names the cause:
    /// spent, revoked, too many pending), `joinTimedOut` when the wait ended without a decision
    /// (the detail tells no sibling answered from nobody decided; or the waiting task was
    /// cancelled), each a `JoinError`, and the storing `SyncKernelError` when a grant could not be
    /// stored; in each of those cases nothing was stored.
    public func outcome() async throws -> JoinedAccount {
        await start()
        while !state.isFinished {
            let now = clock.millisecondsSince1970
            let wake = min(nextDeadline ?? now + maxSleepMillis, now + maxSleepMillis)
            do {
                try await clock.sleep(untilMillis: wake)
            } catch {
                if case .acknowledged = state { finish(.timedOut(acknowledged: true)) } else { finish(.timedOut(acknowledged: false)) }
                throw JoinError(.joinTimedOut, "the wait was cancelled before a decision; nothing was stored")
            }
            await tick()
        }
        switch state {
        case .granted(let joined):
            return joined
        case .rejected:
            throw JoinError(.joinRejected, "a sibling's user rejected this device; nothing was stored")
        case .refused(let refusal):
            throw JoinError(.joinRefused, refusal.explanation)
        case .timedOut(acknowledged: false):
            throw JoinError(.joinTimedOut, "no sibling answered: with no device of the account online nothing admits "
                                  + "this one; nothing was stored")
        case .timedOut(acknowledged: true):
            throw JoinError(.joinTimedOut, "a sibling answered and asked its user, but nobody decided before the wait "
                                  + "ended; nothing was stored")
        case .failed(let error):
            throw error
        case .ready, .requesting, .acknowledged:
            throw JoinError(.joinTimedOut, "the wait ended before a decision; nothing was stored")
        }
    }

    /// Seals the request afresh (this send's timestamp, the same id and reply subject) and
    /// publishes it.
    private func send(attempt: Int, now: Int64) async {
        state = .requesting(sends: attempt)
        lastSentAt = now
        guard let request = try? SignInRequest(requestID: requestID, replyToken: replyToken, ephemeralKey: ephemeralKey,
                                               device: device, envelopeKey: keys.envelopePublicKey, timestamp: now,
                                               deadline: deadline, deviceName: deviceName, certificate: credential.certificate),
              let sealed = request.sealed(to: credential.discoveryKey, ephemeralSeed: entropy.bytes(Sodium.keyBytes)) else { return }
        lastRequest = request
        onEvent(.requestSent(attempt: attempt))
        await carrier.publish(sealed, to: discoverySubject)
    }

    /// Counts and reports a dropped reply.
    private func drop(_ reason: JoinReplyDropReason, bytes: Int) {
        dropCounts[reason, default: 0] += 1
        onEvent(.replyDropped(reason: reason, bytes: bytes))
    }

    /// Ends the wait in `outcome` and reports it.
    private func finish(_ outcome: JoinState) {
        state = outcome
        switch outcome {
        case .granted(let joined): onEvent(.granted(joined))
        case .rejected: onEvent(.rejected)
        case .refused(let refusal): onEvent(.refused(refusal))
        case .timedOut(let acknowledged): onEvent(.timedOut(acknowledged: acknowledged))
        case .failed(let error): onEvent(.storeFailed(error))
        case .ready, .requesting, .acknowledged: return
        }
    }
}
