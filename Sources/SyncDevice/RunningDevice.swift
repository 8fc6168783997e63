import SyncRelay
import NatsRelay
import SnapshotTransfer
import SyncEnvelope
import SyncJoin
import SyncKernel

/// One run of a `SyncDevice`, from `start()` to `stop()`: the store behind its replica host, the
/// relay connection, both halves of the envelope layer, and the tasks that drive them.
///
/// Wiring: `ReplicaHost` → `SealedTransport` (seals each frame to its sibling) →
/// `RelayEnvelopeCarrier` → the relay; the relay's inbox → `InboxScreen` (the gate's stateless
/// checks, on the relay connection's receiving thread) → `DeviceInbox` (the seen set, learning siblings, before
/// any frame is parsed) → `TransferDesk` for snapshot transfer messages,
/// `ReplicaHost` for every other frame; the account's discovery subject (a second connection)
/// → `JoinResponder` (the sign-in ladder, approvals, the members' notices; each (re)connect of that
/// connection announces the sign-in ledger).
///
/// Invariants: `open` either returns a running device, having reported `started` before any of
/// its tasks ran, or throws having closed everything it opened; the tasks are the loop
/// (`ReplicaHost.run`), the inbox (every envelope the screen checked to the gate's seen set, in
/// arrival order), the relay's events (announce on `.connected` and `.reconnected`, then report)
/// and the status task; `shutDown` ends them all, flushes and closes the connection, records the
/// siblings and closes the store last, so every write committed before it stays.
final class RunningDevice: Sendable {
    /// The device's keys (its id is `keys.device`).
    let keys: EnvelopeKeys
    /// The replica's actor.
    let host: ReplicaHost
    /// The gate's actor.
    let receiver: DeviceInbox
    /// The snapshot transfer's actor.
    let desk: TransferDesk
    /// The siblings known at start (the roster of the account directory).
    let siblings: [DeviceID]
    /// The join protocol's sibling side.
    let responder: JoinResponder
    /// The relay connection, listening on the device's inbox.
    let connection: any RelayConnection
    /// The gate's stateless stage on the inbox connection's thread.
    private let screen: InboxScreen
    /// The relay connection listening on the account's discovery subject.
    private let discovery: any RelayConnection
    private let monitor: DeviceMonitor
    private let discoveryTask: Task<Void, Never>
    /// Tells the members online this device's sign-in ledger whenever the discovery connection
    /// (re)connects.
    private let discoveryEvents: Task<Void, Never>
    private let approvalTimer: Task<Void, Never>
    private let siblingsPath: String
    /// Where the run's blocking calls outside the actors (the relay's flush and close, the
    /// siblings file) go, so none holds a thread of the cooperative pool.
    private let io: SerialThreadExecutor
    private let loop: Task<Void, Never>
    private let inbox: Task<Void, Never>
    private let relayEvents: Task<Void, Never>
    private let statusTask: Task<Void, Never>
    private let dropSummary: Task<Void, Never>

    /// Checks the relay options, loads the keys, opens the store (taking its lock: a store another
    /// process has open is refused with `storeInUse` before anything beside it is touched) and the
    /// seen sets, connects the relay and starts the tasks (in this order: nothing is created for
    /// options or keys it refuses).
    /// Blocks for as long as opening the store (a migration included) and connecting take: the
    /// caller runs it on `io`, the executor every blocking call of the run goes through.
    static func open(_ configuration: SyncDeviceConfiguration, monitor: DeviceMonitor,
                     io: SerialThreadExecutor) throws -> RunningDevice {
        let relay = try configuration.relay.validated()
        let keys = try configuration.account.envelopeKeys(name: configuration.name)
        let roster = try configuration.account.roster(for: keys)
        let discoverySubject = try configuration.account.discoverySubject()
        // The store first: its lock refuses a second process on it before anything beside it is touched.
        let store = try KernelStore(path: configuration.storePath, namespaces: configuration.namespaces)
        let replay: ReplayGuard
        let signInReplay: ReplayGuard
        do throws(SyncKernelError) {
            replay = try ReplayGuard(path: configuration.seenPath, window: configuration.replayWindow)
            signInReplay = try ReplayGuard(path: configuration.signInSeenPath, window: SignInGate.replayWindow)
        } catch {
            store.close()
            throw error
        }
        // The gate's stateless stage runs on the relay's thread: an envelope's cryptography is paid
        // once, where it arrives, and junk never wakes the inbox.
        // One session policy for this run, shared by the gate and the sealer: its epoch names this
        // run's receiving sessions, so siblings shake hands again after a restart.
        let sessions = SessionPolicy()
        let gate = EnvelopeGate(keys: keys, roster: roster, replay: replay, learnsSiblings: true, sessions: sessions)
        let screen = InboxScreen(opener: gate.opener, clock: configuration.wallClock, buffer: relay.receiveBufferMessages,
                                 monitor: monitor, reportsEachDrop: configuration.reportsEachDrop)
        let replica: Replica
        let connection: any RelayConnection
        let discovery: any RelayConnection
        do {
            replica = try Replica(device: keys.device, account: keys.userIDHash, siblings: roster.devices, store: store,
                                  timing: configuration.timing, mode: .sketch,
                                  hostCapabilities: relay.shortFormCapability.map { [$0] } ?? [],
                                  // Every frame reaches the replica through the gate, which proved the account.
                                  transportAuthenticatesAccount: true)
            connection = try relay.connect(inbox: keys.inbox.value) { payload in screen.screen(payload) }
            do throws(RelayError) {
                discovery = try relay.connect(inbox: discoverySubject.value)
            } catch {
                connection.close()
                throw error
            }
        } catch {
            store.close()
            throw error
        }
        let responder: JoinResponder
        do throws(SyncKernelError) {
            responder = try JoinResponder(directory: configuration.account, name: configuration.name, replay: signInReplay,
                                          carrier: RelayJoinCarrier(discovery),
                                          family: configuration.family, clock: configuration.wallClock) { event in
                monitor.emit(SyncDeviceEvent(event))
            }
        } catch {
            discovery.close()
            connection.close()
            store.close()
            throw error
        }
        let wallClock = configuration.wallClock
        let carrier = RelayEnvelopeCarrier(connection: connection, shortFormCapability: relay.shortFormCapability)
        let transport = SealedTransport(sealer: EnvelopeSealer(keys: keys, roster: roster, sessions: sessions, replies: gate.opener),
                                        carrier: carrier, clock: wallClock) { event in
            monitor.emit(Self.event(event))
        }
        let host = ReplicaHost(replica: replica, transport: transport, clock: ContinuousLoopClock()) { event in
            if case .siblingCapabilities(let peer, let capabilities) = event, let subject = try? keys.subject(of: peer) {
                carrier.noteCapabilities(capabilities, of: subject)
            }
            monitor.emit(SyncDeviceEvent(event))
        }
        let desk = TransferDesk(host: host, storePath: configuration.storePath, namespaces: configuration.namespaces, transport: transport,
                                account: keys.userIDHash, blobs: configuration.blobs,
                                spoolDirectory: configuration.spoolDirectory, clock: wallClock, monitor: monitor)
        let receiver = DeviceInbox(gate: gate, host: host,
                                   transport: transport, desk: desk, directory: configuration.account, account: keys.userIDHash,
                                   monitor: monitor, reportsEachDrop: configuration.reportsEachDrop,
                                   screen: screen)
        monitor.restore(SiblingLog.read(configuration.siblingsPath) ?? [])
        // Reported before any task runs, so it comes first.
        monitor.emit(.started(device: keys.device))
        return RunningDevice(keys: keys, host: host, receiver: receiver, desk: desk, siblings: roster.devices, responder: responder,
                             connection: connection, screen: screen, discovery: discovery, monitor: monitor,
                             siblingsPath: configuration.siblingsPath, dropSummaryInterval: configuration.dropSummaryInterval, io: io)
    }

    private init(keys: EnvelopeKeys, host: ReplicaHost, receiver: DeviceInbox, desk: TransferDesk, siblings: [DeviceID],
                 responder: JoinResponder, connection: any RelayConnection, screen: InboxScreen, discovery: any RelayConnection,
                 monitor: DeviceMonitor, siblingsPath: String, dropSummaryInterval: Duration, io: SerialThreadExecutor) {
        self.keys = keys
        self.io = io
        self.host = host
        self.receiver = receiver
        self.desk = desk
        self.siblings = siblings
        self.responder = responder
        self.connection = connection
        self.screen = screen
        self.discovery = discovery
        self.monitor = monitor
        self.siblingsPath = siblingsPath
        loop = Task { await host.run() }
        discoveryTask = Task {
            for await message in discovery.messages { await responder.deliver(message) }
        }
        discoveryEvents = Task {
            for await event in discovery.events where event == .connected || event == .reconnected {
                await responder.announceLedger()
            }
        }
        approvalTimer = Task {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: .seconds(1))
                } catch {
                    return
                }
                await responder.tick()
            }
        }
        inbox = Task {
            var rounds = 0
            for await screened in screen.checked {
                // A stop ends the inbox at once, leaving what the screen queued unread.
                guard !Task.isCancelled else { break }
                let (checked, replyLost) = screen.resolve(screened)
                if let replyLost { await receiver.replyLost(replyLost) }
                guard let envelope = checked else { continue }
                guard case .accepted(let opened) = await receiver.deliver(envelope) else { continue }
                monitor.heard(from: opened.sender)
                let started = await host.roundsStarted
                while rounds < started {
                    rounds += 1
                    monitor.emit(.roundStarted(peer: opened.sender))
                }
            }
        }
        dropSummary = Task {
            await Self.summariseDrops(receiver: receiver, connection: connection, monitor: monitor, every: dropSummaryInterval)
        }
        relayEvents = Task {
            for await event in connection.events {
                if event == .connected || event == .reconnected { await host.announce() }
                if event == .closed { screen.finish() }
                monitor.emit(SyncDeviceEvent(event))
            }
        }
        let wakes = monitor.attach()
        statusTask = Task {
            var recorded: [SiblingStatus]?
            for await _ in wakes {
                let marker = monitor.statuses.marker
                let status = await Self.status(host: host, receiver: receiver, connection: connection, monitor: monitor)
                monitor.statuses.yield(status, marker: marker)
                let siblings = status.siblings
                if siblings != recorded, await io.run({ SiblingLog.write(siblings, to: siblingsPath) }) {
                    recorded = siblings
                }
            }
        }
    }

    /// Reports the drops of each period of `interval` that had any (`dropsSummarised`), until
    /// cancelled; the wait is measured on the continuous clock.
    private static func summariseDrops(receiver: DeviceInbox, connection: any RelayConnection, monitor: DeviceMonitor,
                                       every interval: Duration) async {
        var envelopesBefore: [EnvelopeDropReason: Int] = [:]
        var relayBefore: [RelayDropReason: Int] = [:]
        var since = ContinuousClock.now
        while !Task.isCancelled {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            let envelopes = await receiver.dropCounts
            let relay = connection.counters.drops
            let envelopeDelta = increase(from: envelopesBefore, to: envelopes)
            let relayDelta = increase(from: relayBefore, to: relay)
            let now = ContinuousClock.now
            if !envelopeDelta.isEmpty || !relayDelta.isEmpty {
                let period = since.duration(to: now)
                monitor.emit(.dropsSummarised(envelopes: envelopeDelta, relay: relayDelta,
                                              periodMillis: period.components.seconds * 1_000
                                                  + period.components.attoseconds / 1_000_000_000_000_000))
            }
            (envelopesBefore, relayBefore, since) = (envelopes, relay, now)
        }
    }

    /// The counts that grew from `before` to `after`, by how much.
    private static func increase<Reason: Hashable>(from before: [Reason: Int], to after: [Reason: Int]) -> [Reason: Int] {
        var grown: [Reason: Int] = [:]
        for (reason, count) in after where count > before[reason, default: 0] {
            grown[reason] = count - before[reason, default: 0]
        }
        return grown
    }

    /// The running device's status now.
    func status() async -> DeviceStatus {
        await Self.status(host: host, receiver: receiver, connection: connection, monitor: monitor)
    }

    private static func status(host: ReplicaHost, receiver: DeviceInbox, connection: any RelayConnection,
                               monitor: DeviceMonitor) async -> DeviceStatus {
        let snapshot = await host.snapshot
        let live = DeviceStatus.Live(relay: connection.status, roundsStarted: snapshot.roundsStarted,
                                     accepted: await receiver.acceptedCount, dropped: await receiver.dropCounts,
                                     relayDropped: connection.counters.drops, partsAhead: snapshot.partsAhead)
        return DeviceStatus(summary: snapshot.summary, siblings: monitor.siblings(snapshot.siblings), live: live)
    }

    /// Ends the run: the loop and the inbox (envelopes the relay buffered are left unread), the
    /// snapshot transfers under way (`TransferDesk.stop()`), the relay (flushed, then closed, which
    /// ends the event tasks), the status task; records the siblings and closes the store. Returns
    /// the last status.
    func shutDown() async -> DeviceStatus {
        loop.cancel()
        inbox.cancel()
        await desk.stop()
        await loop.value
        let (connection, discovery) = (connection, discovery)
        await io.run {
            if connection.status == .connected {
                do throws(RelayError) {
                    try connection.flush(timeoutMillis: 1_000)
                } catch {
                    // The server went away meanwhile: what was not sent is lost like any frame.
                }
            }
        }
        approvalTimer.cancel()
        dropSummary.cancel()
        await io.run { discovery.close() }
        await discoveryTask.value
        await dropSummary.value
        await discoveryEvents.value
        await approvalTimer.value
        await io.run { connection.close() }
        screen.finish()
        await inbox.value
        await relayEvents.value
        monitor.detach()
        await statusTask.value
        let last = await status()
        let siblingsPath = siblingsPath
        await io.run { _ = SiblingLog.write(last.siblings, to: siblingsPath) }
        await host.closeStore()
        return last
    }

    /// Ends the run without waiting, for a device released while running: cancels the loop,
    /// closes the connection (ending the inbox and event tasks) and ends the status task; the
    /// store closes when the last task holding the host has ended.
    func abandon() {
        loop.cancel()
        approvalTimer.cancel()
        dropSummary.cancel()
        discovery.close()
        connection.close()
        screen.finish()
        monitor.detach()
    }

    /// An envelope-layer event as a device event.
    static func event(_ event: EnvelopeEvent) -> SyncDeviceEvent {
        switch event {
        case .dropped(let reason, let bytes): .envelopeDropped(reason: reason, bytes: bytes)
        case .sealFailed(let recipient, let error): .sealFailed(recipient: recipient, error: ErrorReport(error))
        case .sessionRefused(let sibling): .sessionRefused(sibling: sibling)
        }
    }
}
