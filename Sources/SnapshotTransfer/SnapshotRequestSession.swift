import SyncKernel

/// The requester's side of the exchange, sans-IO: when to send the request to which sibling, what
/// each answered, and when the wait is over. A host sends what `due(now:)` returns, hands every
/// accepted transfer message to `receive(_:from:)`, absorbs the offer `state` names, and gives up
/// at `timedOut`.
///
/// Invariants: one request id for every send to every sibling; each sibling is sent the request
/// at most `maxSends` times, `interval` apart, the first send alone marked `wake` (the frame a
/// relay may turn into a push that wakes a sleeping device), and no more once it answered;
/// messages for another request id or from a device that is not one of the siblings are ignored;
/// a decline and a failure report stay apart (`Answer.declined`, `Answer.broken`); the state is a
/// function of the answers and the time: an offer not yet abandoned wins (the first to arrive),
/// otherwise every sibling refusing is `refused`, otherwise the wait ends `interval` after the
/// last send (`timedOut`) rather than hanging in `requesting`.
public struct SnapshotRequestSession: Sendable {
    /// One send the host makes now.
    public struct Send: Sendable, Hashable {
        /// The sibling to send the request to.
        public let sibling: DeviceID
        /// Whether this is the first send to it (the one that may wake it).
        public let wake: Bool
        /// Which send this is to that sibling, from 1.
        public let attempt: Int
    }

    /// What one sibling answered.
    public enum Answer: Sendable, Hashable {
        /// Nothing yet.
        case pending
        /// It offered a snapshot.
        case offered(SyncOffer)
        /// It declined.
        case declined(SyncDecline.Reason)
        /// It tried and failed, at this stage, with this code.
        case broken(SyncBroken)
        /// It offered, and absorbing the offer failed (the ack's reason).
        case abandoned(SyncAck.Reason)
    }

    /// Where the session stands.
    public enum State: Sendable, Hashable {
        /// There is no sibling to ask: nothing will answer.
        case noSiblings
        /// Waiting for answers.
        case requesting
        /// A sibling offered a snapshot: absorb it, then `abandon` it if that fails.
        case offered(sibling: DeviceID, offer: SyncOffer)
        /// Every sibling declined, broke, or offered a snapshot that could not be absorbed.
        case refused
        /// The last send's interval passed without a usable offer.
        case timedOut
    }

    /// The request every send carries.
    public let request: SyncRequest
    /// The devices asked.
    public let siblings: [DeviceID]
    /// Milliseconds between two sends to one sibling.
    public let intervalMillis: Int64
    /// Sends per sibling at most.
    public let maxSends: Int
    /// Each sibling's answer.
    public private(set) var answers: [DeviceID: Answer]
    private var sends: [DeviceID: Int]
    private var offerOrder: [DeviceID] = []
    private let started: Int64

    /// A session for `request` to `siblings` (this device left out), starting at `now`
    /// (milliseconds), re-sending every `interval` up to `maxSends` times (5 s and 7: about 35 s).
    public init(request: SyncRequest, siblings: [DeviceID], now: Int64, interval: Duration = .seconds(5), maxSends: Int = 7) {
        self.request = request
        self.siblings = Array(Set(siblings)).sorted()
        let parts = interval.components
        intervalMillis = max(1, parts.seconds * 1_000 + parts.attoseconds / 1_000_000_000_000_000)
        self.maxSends = max(1, maxSends)
        answers = Dictionary(uniqueKeysWithValues: self.siblings.map { ($0, Answer.pending) })
        sends = Dictionary(uniqueKeysWithValues: self.siblings.map { ($0, 0) })
        started = now
    }

    /// The sends due at `now`: every sibling still pending whose next send time has come, each
    /// counted as sent.
    public mutating func due(now: Int64) -> [Send] {
        guard case .requesting = state(now: now) else { return [] }
        var out: [Send] = []
        for sibling in siblings where answers[sibling] == .pending {
            let sent = sends[sibling] ?? 0
            guard sent < maxSends, now >= started + Int64(sent) * intervalMillis else { continue }
            sends[sibling] = sent + 1
            out.append(Send(sibling: sibling, wake: sent == 0, attempt: sent + 1))
        }
        return out
    }

    /// When the host should call `due(now:)` or read `state(now:)` next: the next send, or the end
    /// of the wait; nil once nothing is left to wait for.
    public func nextDeadline(now: Int64) -> Int64? {
        guard case .requesting = state(now: now) else { return nil }
        let pending = siblings.filter { answers[$0] == .pending }
        let nextSend = pending.compactMap { sibling -> Int64? in
            let sent = sends[sibling] ?? 0
            return sent < maxSends ? started + Int64(sent) * intervalMillis : nil
        }.min()
        return min(nextSend ?? .max, endOfWait)
    }

    /// Takes an accepted transfer message from `sibling`; returns whether it counted (an answer to
    /// this request from one of the siblings, the first it gave).
    @discardableResult
    public mutating func receive(_ message: TransferMessage, from sibling: DeviceID) -> Bool {
        guard message.requestID == request.requestID, answers[sibling] == .pending else { return false }
        switch message {
        case .offer(let offer):
            answers[sibling] = .offered(offer)
            offerOrder.append(sibling)
        case .decline(let decline):
            answers[sibling] = .declined(decline.reason)
        case .broken(let broken):
            answers[sibling] = .broken(broken)
        case .request, .ack:
            return false
        }
        return true
    }

    /// Records that absorbing `sibling`'s offer failed with `reason`; the next offer, if any, is
    /// then the state's.
    public mutating func abandon(offerFrom sibling: DeviceID, reason: SyncAck.Reason) {
        guard case .offered = answers[sibling] else { return }
        answers[sibling] = .abandoned(reason)
    }

    /// The state at `now`.
    public func state(now: Int64) -> State {
        guard !siblings.isEmpty else { return .noSiblings }
        for sibling in offerOrder {
            if case .offered(let offer) = answers[sibling] { return .offered(sibling: sibling, offer: offer) }
        }
        if !answers.values.contains(.pending) { return .refused }
        return now >= endOfWait ? .timedOut : .requesting
    }

    /// One interval after the last send to any sibling.
    private var endOfWait: Int64 { started + Int64(maxSends) * intervalMillis }
}
