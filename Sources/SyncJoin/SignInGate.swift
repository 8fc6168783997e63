import SyncEnvelope
import SyncKernel

/// A sibling's guard ladder: what it runs on every message on its account's discovery subject
/// before anything reaches its user. Every rung's failure is a silent drop (nothing is sent
/// back), counted by reason and reported once.
///
/// The rungs, in order; the first that fails drops the request with its reason:
/// 1. it decodes: exactly a sealed request's size (`SignInRequest.sealedBytes`) and version 1,
///    before anything is decrypted (`undecodable`); the sealed box opens with the account's discovery secret key
///    (`unopenable`); the inside is exactly a request's layout (`undecodable`);
/// 2. the certificate verifies against the pinned verifier key (none pinned: `noPinnedVerifier`;
///    otherwise `badCertificate`) and has not expired at `now` (`expiredCertificate`);
/// 3. this device has its own sign-in certificate, one that verifies under the pinned key
///    (`noOwnCertificate`);
/// 4. the two certificates name the same identity, compared in constant time (`otherIdentity`);
/// 5. the timestamp is within `windowMillis` (120 s) of `now` either way (`staleTimestamp`,
///    `futureTimestamp`);
/// 6. the request id is new to the persisted seen set (`replayed`, also when older than what
///    the bounded set gave up) and the set recorded it (`replayStoreUnavailable`).
///
/// Invariants: every message is either accepted or dropped with exactly one reason; each drop is
/// counted under its reason (`dropCounts`) and reported once (`drainDrops()`); a request id is
/// recorded only for a request that passed every other rung (so a stranger cannot fill the seen
/// set), in a committed transaction before the request is accepted, so neither a restart nor a
/// power loss lets it in twice; the gate never traps on any input. Not `Sendable`: one owner
/// runs it (it holds the seen set's SQLite connection).
public final class SignInGate {
    /// How far a request's timestamp may be from this device's clock, either way (120 s).
    public static let windowMillis: Int64 = 120_000
    /// A seen set's window for sign-in requests: 120 s either way, at most 10,000 ids.
    public static var replayWindow: ReplayWindow {
        var window = ReplayWindow()
        window.pastMillis = windowMillis
        window.futureMillis = windowMillis
        window.maxEntries = 10_000
        return window
    }

    /// The account's discovery keys.
    private let discovery: DiscoveryKeys
    /// The pinned sign-in verifier key (Ed25519 public key); nil when none is pinned.
    public let verifier: [UInt8]?
    /// This device's own sign-in certificate; nil when it has none.
    public let ownCertificate: SignInCertificate?
    private let replay: ReplayGuard
    /// Requests dropped so far, by reason.
    public private(set) var dropCounts: [SignInDropReason: Int] = [:]
    /// Requests accepted so far.
    public private(set) var acceptedCount = 0
    private var drops: [(reason: SignInDropReason, bytes: Int)] = []

    /// A gate for a device holding the 32-byte `accountSeed`, pinning `verifier` (nil: none),
    /// holding `ownCertificate` (nil: none), recording request ids in `replay` (open it with
    /// `SignInGate.replayWindow`; a wider window only keeps ids longer, a narrower one would drop
    /// fresh requests as `replayed`). `invalidDeviceIdentity` for a seed of another size.
    public init(accountSeed: [UInt8], verifier: [UInt8]?, ownCertificate: SignInCertificate?,
                replay: ReplayGuard) throws(SyncKernelError) {
        discovery = try DiscoveryKeys(accountSeed: accountSeed)
        self.verifier = verifier
        self.ownCertificate = ownCertificate
        self.replay = replay
    }

    /// The subject the gate's requests arrive on: the account's discovery subject.
    public var discoverySubject: JoinSubject { discovery.subject }

    /// Request ids the seen set holds.
    public var seenCount: Int { replay.count }

    /// Runs every rung on `message` at `now` (milliseconds since 1970), counting and recording a
    /// drop.
    public func open(_ message: [UInt8], now: Int64) -> SignInVerdict {
        let verdict = check(message, now: now)
        switch verdict {
        case .accepted:
            acceptedCount += 1
        case .dropped(let reason):
            dropCounts[reason, default: 0] += 1
            drops.append((reason, message.count))
        case .notice:
            break
        }
        return verdict
    }

    /// The drops since the last call, each with the message's length, in order.
    public func drainDrops() -> [(reason: SignInDropReason, bytes: Int)] {
        defer { drops.removeAll() }
        return drops
    }

    private func check(_ message: [UInt8], now: Int64) -> SignInVerdict {
        guard message.count == SignInRequest.sealedBytes, message[0] == SignInRequest.version else { return .dropped(.undecodable) }
        guard let inside = Sodium.open(message[1...], publicKey: discovery.publicKey, secretKey: discovery.secretKey) else {
            return .dropped(.unopenable)
        }
        guard let request = SignInRequest(parsing: inside) else { return .dropped(.undecodable) }
        guard let verifier else { return .dropped(.noPinnedVerifier) }
        guard request.certificate.verify(verifier: verifier) else { return .dropped(.badCertificate) }
        guard !request.certificate.isExpired(atMillis: now) else { return .dropped(.expiredCertificate) }
        guard let ownCertificate, ownCertificate.verify(verifier: verifier) else { return .dropped(.noOwnCertificate) }
        guard Sodium.constantTimeEqual(request.certificate.identity, ownCertificate.identity) else {
            return .dropped(.otherIdentity)
        }
        let (oldest, lowOverflow) = now.subtractingReportingOverflow(Self.windowMillis)
        let (newest, highOverflow) = now.addingReportingOverflow(Self.windowMillis)
        guard lowOverflow || request.timestamp >= oldest else { return .dropped(.staleTimestamp) }
        guard highOverflow || request.timestamp <= newest else { return .dropped(.futureTimestamp) }
        switch replay.admit(frameID: request.requestID, timestamp: request.timestamp, now: now) {
        case .fresh: return .accepted(request)
        case .replayed, .outsideWindow: return .dropped(.replayed)
        case .unavailable: return .dropped(.replayStoreUnavailable)
        }
    }
}
