/// The envelopes a gate accepted lately, by a keyed fingerprint of their bytes, so that a
/// byte-for-byte replay is refused where it arrives without opening it again.
///
/// Invariants: it holds only envelopes whose frame id the gate's seen set holds (the gate adds an
/// envelope once its frame id was recorded and forgets every one at or below the seen set's floor
/// whenever the floor rises), so it is bounded by the seen set's `maxEntries` and a hit is exactly
/// an envelope the full check would drop too, for the reason `verdict` gives: `expiredCertificate`
/// once its certificate expired, `outsideWindow` once its timestamp left the window, `replayed`
/// otherwise (the roster only grows, so its sender is still a sibling). The fingerprint is
/// SipHash-2-4 of the whole envelope under a key derived from this device's envelope secret, so a
/// sender cannot make other bytes look like an accepted envelope's.
struct RecentEnvelopes: Sendable {
    /// What is kept of an accepted envelope.
    private struct Entry: Sendable {
        let timestamp: Int64
        /// The sender's certificate's first invalid instant, milliseconds (`Int64.max`: never).
        let expiresAtMillis: Int64
    }

    private let key: [UInt8]
    private let window: ReplayWindow
    private var entries: [UInt64: Entry] = [:]

    /// An empty record fingerprinting under `key` (16 bytes), judging time against `window`.
    init(key: [UInt8], window: ReplayWindow) {
        self.key = key
        self.window = window
    }

    /// Envelopes held.
    var count: Int { entries.count }

    /// The fingerprint of `envelope` (nil only for a key of the wrong size).
    func fingerprint(_ envelope: [UInt8]) -> UInt64? {
        Sodium.shortHash(envelope, key: key)
    }

    /// The reason an envelope of fingerprint `print` is dropped at `now` when the gate accepted it
    /// before; nil when it did not (or was forgotten).
    func verdict(_ print: UInt64, now: Int64) -> EnvelopeDropReason? {
        guard let entry = entries[print] else { return nil }
        guard now < entry.expiresAtMillis else { return .expiredCertificate }
        return window.contains(entry.timestamp, at: now) ? .replayed : .outsideWindow
    }

    /// Records an envelope the gate accepted: its fingerprint, timestamp and sender's certificate.
    mutating func remember(_ print: UInt64, timestamp: Int64, certificate: SenderCertificate) {
        entries[print] = Entry(timestamp: timestamp, expiresAtMillis: certificate.expiresAtMillis)
    }

    /// Forgets every envelope stamped at or below `floor`.
    mutating func forget(atOrBelow floor: Int64) {
        entries = entries.filter { $0.value.timestamp > floor }
    }
}
