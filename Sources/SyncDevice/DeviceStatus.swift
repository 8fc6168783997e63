import SyncRelay
import Foundation
import NatsRelay
import SyncEnvelope
import SyncKernel

/// A device's status: its id, each namespace's items and root, and its siblings; while the device
/// runs, also its relay state, rounds and envelope counts.
///
/// Invariants: `namespaces` is sorted by name and `siblings` by device; two stores holding the
/// same items show equal `namespaces` and print byte-identical `namespaces` objects in `json()`
/// (keys sorted, roots in lower-case hex); the status read from a store's files
/// (`init(storeAt:)`) never writes to them and needs no lease, so it can be read while a device
/// runs on the store, and it agrees with the running device's own status on `namespaces` once
/// the file holds the same commits.
public struct DeviceStatus: Sendable, Hashable {
    /// What only a running device knows.
    public struct Live: Sendable, Hashable {
        /// The relay connection's state.
        public let relay: RelayStatus
        /// Reconcile rounds started since the device started.
        public let roundsStarted: Int
        /// Frames sent since the device started that another part of the same answer followed
        /// (`Replica.partsAhead`).
        public let partsAhead: Int
        /// Envelopes the gate accepted since the device started.
        public let accepted: Int
        /// Envelopes the gate dropped since the device started, by reason.
        public let dropped: [EnvelopeDropReason: Int]
        /// Payloads and chunks the relay layer dropped since the device started, by reason (on
        /// the inbox connection: slow consumer, oversized, malformed chunks, a full receive
        /// buffer, and sends while not connected).
        public let relayDropped: [RelayDropReason: Int]

        /// A running device's counters.
        public init(relay: RelayStatus, roundsStarted: Int, accepted: Int, dropped: [EnvelopeDropReason: Int],
                    relayDropped: [RelayDropReason: Int] = [:], partsAhead: Int = 0) {
            self.relay = relay
            self.roundsStarted = roundsStarted
            self.partsAhead = partsAhead
            self.accepted = accepted
            self.dropped = dropped
            self.relayDropped = relayDropped
        }
    }

    /// The device the store belongs to; nil for a store no device configured yet.
    public let device: DeviceID?
    /// Each namespace's items (`rows`) and root, sorted by name.
    public let namespaces: [StoreSummary.Namespace]
    /// The siblings, sorted by device.
    public let siblings: [SiblingStatus]
    /// The running device's counters; nil for a status read from the files.
    public let live: Live?

    /// A status from its parts (sorted here).
    public init(summary: StoreSummary, siblings: [SiblingStatus], live: Live?) {
        device = summary.device
        namespaces = summary.namespaces
        self.siblings = siblings.sorted { $0.device < $1.device }
        self.live = live
    }

    /// The status of the store at `storePath`, read from its files: the store through a
    /// read-only connection (`KernelStore.summary(storedAt:)`), the siblings from the file the
    /// device keeps beside it (none when it has not written one yet). Throws `notAStore` or
    /// `foreignDatabase` for a file that is not a store.
    public init(storeAt storePath: String) throws(SyncKernelError) {
        let summary = try KernelStore.summary(storedAt: storePath)
        self.init(summary: summary, siblings: SiblingLog.read(storePath + "-siblings") ?? [], live: nil)
    }

    /// The status as a JSON-ready object: `device`, `namespaces` (name to `rows`, `root` and
    /// `conflicts`, the keys holding live versions of more than one content, null when unreadable),
    /// `siblings` (`device`, `last_round`, `last_seen`, `in_sync`), and for a running device
    /// `running`, `relay`, `rounds_started`, `parts_ahead`, `envelopes` (`accepted`, `dropped` by
    /// reason) and `relay_dropped` (by relay drop reason).
    public func jsonObject() -> [String: Any] {
        var namespaceObject: [String: Any] = [:]
        for namespace in namespaces {
            namespaceObject[namespace.name] = ["rows": namespace.items, "root": Hex.encode(namespace.root),
                                               "conflicts": namespace.openConflicts.map { $0 as Any } ?? NSNull()]
        }
        var object: [String: Any] = [
            "device": device.map { $0.hex as Any } ?? NSNull(),
            "namespaces": namespaceObject,
            "siblings": siblings.map { sibling -> [String: Any] in
                ["device": sibling.device.hex, "last_round": sibling.lastRound.map { $0 as Any } ?? NSNull(),
                 "last_seen": sibling.lastSeen.map { $0 as Any } ?? NSNull(), "in_sync": sibling.inSync]
            },
        ]
        if let live {
            object["running"] = true
            object["relay"] = Self.name(of: live.relay)
            object["rounds_started"] = live.roundsStarted
            object["parts_ahead"] = live.partsAhead
            var dropped: [String: Int] = [:]
            for (reason, count) in live.dropped { dropped[reason.name] = count }
            object["envelopes"] = ["accepted": live.accepted, "dropped": dropped] as [String: Any]
            object["relay_dropped"] = Dictionary(uniqueKeysWithValues: live.relayDropped.map { ($0.key.rawValue, $0.value) })
        }
        return object
    }

    /// The status as one line of JSON with sorted keys.
    public func json() -> String {
        JSONLine.encode(jsonObject())
    }

    /// The status as a readable table.
    public func text() -> String {
        var lines = ["device: \(device?.hex ?? "none configured")"]
        if let live {
            let dropped = live.dropped.values.reduce(0, +)
            lines.append("relay: \(Self.name(of: live.relay)), rounds started: \(live.roundsStarted), "
                         + "envelopes accepted: \(live.accepted), dropped: \(dropped), "
                         + "relay dropped: \(live.relayDropped.values.reduce(0, +))")
        }
        let width = max(9, namespaces.map(\.name.count).max() ?? 0)
        lines.append("namespace".padding(toLength: width, withPad: " ", startingAt: 0) + "  " + "rows".leftPadded(10) + "  " + "conflicts".leftPadded(9)
                     + "  root")
        for namespace in namespaces {
            lines.append(namespace.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                         + String(namespace.items).leftPadded(10) + "  "
                         + (namespace.openConflicts.map(String.init) ?? "?").leftPadded(9) + "  " + Hex.encode(namespace.root))
        }
        if siblings.isEmpty {
            lines.append("siblings: none recorded")
        } else {
            lines.append("sibling" + String(repeating: " ", count: 59) + "in sync  last round                last seen")
            for sibling in siblings {
                lines.append(sibling.device.hex + "  " + (sibling.inSync ? "yes" : "no ").padding(toLength: 7, withPad: " ", startingAt: 0)
                             + "  " + Self.time(sibling.lastRound).padding(toLength: 24, withPad: " ", startingAt: 0)
                             + " " + Self.time(sibling.lastSeen))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A relay state's name in the JSON and the table.
    static func name(of status: RelayStatus) -> String {
        switch status {
        case .connecting: "connecting"
        case .connected: "connected"
        case .reconnecting: "reconnecting"
        case .closed: "closed"
        }
    }

    /// A time in milliseconds since 1970 as UTC ISO 8601, or "never".
    private static func time(_ millis: Int64?) -> String {
        guard let millis else { return "never" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(millis) / 1_000))
    }
}

private extension String {
    /// The string right-aligned in `width` columns.
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
