import SnapshotTransfer
import SyncEnvelope
import SyncJoin
import SyncKernel

/// The opening side of a running device: runs the self-gate's seen set on every envelope the
/// relay thread's `InboxScreen` checked, takes in the siblings the gate learned, and hands each
/// accepted frame on: a snapshot transfer message to the `TransferDesk`, any other frame to the
/// replica.
///
/// Invariants: no frame is parsed unless the gate accepted its envelope; a handshake message goes
/// to the transport (`SealedTransport.receiveSessionMessage`) and nowhere else; a transfer message is
/// recognised (`TransferMessage.isTransferMessage`) and routed BEFORE the replica could see it,
/// and reaches the desk only from this account (`TransferMessage.accept`); a learned sibling is
/// added to the sealer and the replica, and recorded in the account directory (unless a
/// certificate of that device is there already), before its first frame is handled, so the answer
/// to that frame can be sealed to it; envelopes are handled in the order `deliver` is called; a
/// drop costs a count (`dropCounts`, which also holds what the screen refused before queueing),
/// and an event only when `reportsEachDrop`.
actor DeviceInbox {
    /// The thread the actor runs on (its seen-set commits block), so no blocking call holds a thread of the
    /// cooperative pool; callers suspend meanwhile.
    private nonisolated let executor = SerialThreadExecutor(name: "synckernel.inbox")

    /// The actor's executor: a thread of its own.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    private let gate: EnvelopeGate
    private let host: ReplicaHost
    private let transport: SealedTransport
    private let desk: TransferDesk
    private let directory: AccountDirectory
    private let account: [UInt8]
    private let monitor: DeviceMonitor
    private let reportsEachDrop: Bool
    private let screen: InboxScreen

    /// Takes ownership of `gate`; hands frames to `host` and transfer messages to `desk`; reports
    /// each drop as an event when `reportsEachDrop`; counts the relay thread's refusals
    /// (`screen`) among its drops.
    init(gate: sending EnvelopeGate, host: ReplicaHost, transport: SealedTransport, desk: TransferDesk, directory: AccountDirectory,
         account: [UInt8], monitor: DeviceMonitor, reportsEachDrop: Bool, screen: InboxScreen) {
        self.reportsEachDrop = reportsEachDrop
        self.screen = screen
        self.gate = gate
        self.host = host
        self.transport = transport
        self.desk = desk
        self.directory = directory
        self.account = account
        self.monitor = monitor
    }

    /// Runs the seen set on one checked envelope and hands its frame on; returns the verdict.
    func deliver(_ envelope: CheckedEnvelope) async -> EnvelopeVerdict {
        let verdict = gate.admit(envelope, now: envelope.checkedAt)
        for event in gate.drainEvents() {
            if case .dropped = event, !reportsEachDrop { continue }
            monitor.emit(RunningDevice.event(event))
        }
        for certificate in gate.drainLearned() { await learn(certificate) }
        guard case .accepted(let opened) = verdict else { return verdict }
        switch await transport.receiveSessionMessage(opened.frame, from: opened.sender, opener: gate.opener,
                                                     viaHandshake: opened.viaHandshake) {
        case .notSession: await handOn(opened.frame, of: opened)
        case .handled: break
        case .carried(let frame): await handOn(frame, of: opened)
        }
        return verdict
    }

    /// Hands `frame`, from the accepted envelope `opened` (its own frame or the one its pair
    /// hello carried), to the desk or the replica.
    private func handOn(_ frame: [UInt8], of opened: OpenedEnvelope) async {
        if TransferMessage.isTransferMessage(frame) {
            switch TransferMessage.accept(.accepted(opened.carrying(frame)), account: account) {
            case .accepted(let sender, let message): await desk.receive(message, from: sender)
            case .dropped(let reason): monitor.emit(.transferDropped(reason))
            }
        } else {
            await host.receive(frame, from: opened.sender)
        }
    }

    /// Takes in that a sibling sends on the reply session of this device's pair hello whose
    /// accept never came: the transport says hello again (`SealedTransport.replyLost(_:)`).
    func replyLost(_ reply: AwaitedReply) async {
        await transport.replyLost(reply)
    }

    /// Envelopes dropped so far, by reason.
    var dropCounts: [EnvelopeDropReason: Int] { gate.dropCounts.merging(screen.snapshot, uniquingKeysWith: +) }

    /// Envelopes accepted so far.
    var acceptedCount: Int { gate.acceptedCount }

    /// Makes a device the gate learned a sibling everywhere: sealer, replica, account directory.
    private func learn(_ certificate: SenderCertificate) async {
        do throws(SyncKernelError) {
            try await transport.learn(certificate)
        } catch {
            return
        }
        Self.record(certificate, in: directory)
        await host.addSibling(certificate.device)
        monitor.emit(.siblingLearned(device: certificate.device))
    }

    /// Records `certificate` as `devices/device-<first 16 hex digits>.cert`, unless the directory
    /// holds a certificate of that device already; a failure records nothing (the gate learns the
    /// device again after a restart).
    private static func record(_ certificate: SenderCertificate, in directory: AccountDirectory) {
        guard let held = try? directory.certificatesByName(),
              !held.values.contains(where: { $0.device == certificate.device }) else { return }
        try? directory.addSiblingCertificate(certificate, name: "device-" + String(certificate.device.hex.prefix(16)))
    }
}
