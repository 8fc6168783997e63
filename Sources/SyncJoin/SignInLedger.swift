import SyncKernel

/// What an account's members know about sign-in credentials that may admit no device any more:
/// each one spent (it admitted a device) or revoked (by `synckernel account sign-in-cert
/// --revoke`), with its expiry. A sibling refuses every request whose credential the ledger
/// names, and the ledger travels to the other members inside their sealed notices
/// (`JoinNotice`), where each merges it into its own.
///
/// The body, hand-written, big-endian: an entry count (2 bytes, at most `maxEntries`), then
/// every entry in strictly increasing order of credential id: the id (16 bytes), the
/// certificate's expiry (8 bytes, seconds since 1970, at most `Int64.max`), the mark (1 spent,
/// 2 revoked). The file `DIR/sign-in.ledger` is the magic `SKSILG`, a zero byte, version 1,
/// then the body.
///
/// Invariants: at most one entry per credential and at most `maxEntries` entries (when more
/// are known, those expiring first are forgotten: an expired credential fails the ladder
/// anyway); merging only adds knowledge (an entry is never removed before it expires, and
/// `spent` wins over `revoked`), so any order of merges ends in the same ledger;
/// `encoded()` and `init?(parsing:)` are exact inverses and nothing else parses.
public struct SignInLedger: Sendable, Hashable {
    /// What a credential is marked as.
    public enum Mark: UInt8, Sendable, Hashable {
        /// It admitted a device; it admits no other.
        case spent = 1
        /// Its account revoked it before it was used.
        case revoked = 2
    }

    /// One credential the ledger names.
    public struct Entry: Sendable, Hashable {
        /// The credential.
        public let credential: CredentialID
        /// When its certificate expires, seconds since 1970 (the entry is kept until then).
        public let expiresAt: Int64
        /// Spent or revoked.
        public let mark: Mark
    }

    /// The most entries a ledger keeps.
    public static let maxEntries = 64
    /// Bytes of one encoded entry.
    package static let entryBytes = CredentialID.byteCount + 8 + 1
    /// The longest body.
    package static let maxBytes = 2 + maxEntries * entryBytes
    /// The magic and version that open a ledger file.
    private static let magic = Array("SKSILG".utf8) + [0, 1]

    /// The entries by credential.
    private var byCredential: [CredentialID: Entry] = [:]

    /// An empty ledger.
    public init() {}

    /// The entries, in increasing order of credential id.
    public var entries: [Entry] {
        byCredential.values.sorted { $0.credential < $1.credential }
    }

    /// The mark of `credential`, nil when the ledger does not name it.
    public func mark(of credential: CredentialID) -> Mark? {
        byCredential[credential]?.mark
    }

    /// Records `entry` (spent wins over revoked); returns whether the ledger changed.
    @discardableResult
    public mutating func record(_ entry: Entry) -> Bool {
        if let known = byCredential[entry.credential] {
            let mark: Mark = known.mark == .spent || entry.mark == .spent ? .spent : .revoked
            let expiresAt = max(known.expiresAt, entry.expiresAt)
            guard mark != known.mark || expiresAt != known.expiresAt else { return false }
            byCredential[entry.credential] = Entry(credential: entry.credential, expiresAt: expiresAt, mark: mark)
            return true
        }
        byCredential[entry.credential] = entry
        trim()
        return byCredential[entry.credential] != nil
    }

    /// Records every entry of `other`; returns how many entries were added or changed.
    @discardableResult
    public mutating func merge(_ other: SignInLedger) -> Int {
        other.entries.reduce(0) { count, entry in count + (record(entry) ? 1 : 0) }
    }

    /// Whether `other` lacks an entry of this ledger (or knows less of one), so sending it this
    /// ledger would teach it something.
    public func teaches(_ other: SignInLedger) -> Bool {
        byCredential.values.contains { entry in
            guard let theirs = other.byCredential[entry.credential] else { return true }
            return (entry.mark == .spent && theirs.mark != .spent) || entry.expiresAt > theirs.expiresAt
        }
    }

    /// The ledger without the entries expired at `now` (milliseconds since 1970).
    public func pruned(atMillis now: Int64) -> SignInLedger {
        var kept = SignInLedger()
        kept.byCredential = byCredential.filter { _, entry in
            let (limit, overflow) = entry.expiresAt.multipliedReportingOverflow(by: 1_000)
            return overflow || now < limit
        }
        return kept
    }

    /// Forgets the entries expiring first while there are more than `maxEntries`.
    private mutating func trim() {
        guard byCredential.count > Self.maxEntries else { return }
        let ordered = byCredential.values.sorted { ($0.expiresAt, $0.credential) < ($1.expiresAt, $1.credential) }
        for entry in ordered.prefix(byCredential.count - Self.maxEntries) { byCredential[entry.credential] = nil }
    }

    /// The body's bytes.
    public func encoded() -> [UInt8] {
        let sorted = entries
        var bytes = [UInt8(sorted.count >> 8), UInt8(sorted.count & 0xFF)]
        bytes.reserveCapacity(2 + sorted.count * Self.entryBytes)
        for entry in sorted {
            bytes += entry.credential.bytes
            bytes += withUnsafeBytes(of: UInt64(clamping: entry.expiresAt).bigEndian) { Array($0) }
            bytes.append(entry.mark.rawValue)
        }
        return bytes
    }

    /// Reads a body of exactly its length; nil for a count above `maxEntries`, another length,
    /// ids not strictly increasing, an expiry above `Int64.max` or an unknown mark.
    public init?(parsing bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 2 else { return nil }
        let base = bytes.startIndex
        let count = Int(bytes[base]) << 8 | Int(bytes[base + 1])
        guard count <= Self.maxEntries, bytes.count == 2 + count * Self.entryBytes else { return nil }
        var previous: CredentialID?
        for index in 0..<count {
            let start = base + 2 + index * Self.entryBytes
            let idEnd = start + CredentialID.byteCount
            var expiry: UInt64 = 0
            for byte in bytes[idEnd..<(idEnd + 8)] { expiry = expiry << 8 | UInt64(byte) }
            guard let credential = CredentialID(bytes: bytes[start..<idEnd]), previous.map({ $0 < credential }) ?? true,
                  let expiresAt = Int64(exactly: expiry), let mark = Mark(rawValue: bytes[idEnd + 8]) else { return nil }
            byCredential[credential] = Entry(credential: credential, expiresAt: expiresAt, mark: mark)
            previous = credential
        }
    }

    /// The file's bytes.
    package func fileEncoded() -> [UInt8] {
        Self.magic + encoded()
    }

    /// Reads a ledger file's bytes; `malformedKeyFile` when they are not one.
    package init(decodingFile bytes: [UInt8]) throws(SyncKernelError) {
        guard bytes.starts(with: Self.magic), let ledger = SignInLedger(parsing: bytes[Self.magic.count...]) else {
            throw SyncKernelError(.malformedKeyFile, "not a sign-in ledger file")
        }
        self = ledger
    }
}
