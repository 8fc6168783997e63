import NatsRelay
import SnapshotTransfer
import SyncEnvelope
import SyncKernel

/// Both sides of the snapshot transfer in a running device: it answers siblings' snapshot
/// requests (export, seal, upload through the blob store, then an offer, or a decline or a
/// failure report), and runs this device's own request (`absorb`) to the end.
///
/// Invariants: every transfer message goes out sealed to one sibling like any sibling frame,
/// `silent` but for the first send of this device's request to each sibling (`sync`); at most
/// one export runs at a time (another request meanwhile is declined `busy`; a re-send of the
/// request under way is ignored, and one already answered gets the same answer again, never a
/// second export); an export or upload that throws is answered `SyncBroken`, never a decline; the
/// blob an ack answers is deleted; an export reads the store through a read-only connection of
/// its own on an executor of its own (`exporter`), so the replica host goes on syncing and
/// answering while a large snapshot is read, sealed and uploaded, and the desk itself runs on a
/// thread of its own (blob store calls block); an absorb fetches, checks and decrypts on an
/// executor of its own (`absorber`) and imports one transaction at a time on the replica host,
/// which holds its siblings' frames and its timers until the import ends; `absorb` ends with a report or a typed error and, when
/// the offered blob fails its checks, acks `ok: false` having imported nothing. `stop()` ends an
/// export or absorb under way within a piece of the snapshot (`snapshotStopped`), answers no
/// request from then on, and returns once the export has ended.
actor TransferDesk {
    private struct Answered {
        let sibling: DeviceID
        let message: TransferMessage
    }

    /// Answers remembered for re-sends, at most.
    private static let rememberedAnswers = 16
    /// Rows and deletes per import transaction of an absorb: each transaction holds the replica
    /// host for its duration, so a small one keeps the device's status and writes answering
    /// (a few milliseconds each in a release build) for a few more commits in all.
    private static let importRowsPerTransaction = 1_000

    private let host: ReplicaHost
    private let storePath: String
    private let namespaces: NamespaceSet
    /// The desk's own thread: blob store calls block.
    private let executor = SerialThreadExecutor(name: "synckernel.transfer")
    /// Where an export reads, seals and uploads, beside the desk and the replica host.
    private let exporter = SnapshotWorker(name: "synckernel.snapshot-export")
    /// Where an absorb fetches, checks and decrypts a snapshot, beside the desk and the host.
    private let absorber = SnapshotWorker(name: "synckernel.snapshot-absorb")
    private let transport: SealedTransport
    private let account: [UInt8]
    private let blobChoice: SyncDeviceBlobs
    private let spoolDirectory: String
    private let clock: any WallClock
    private let monitor: DeviceMonitor
    private var blobStore: (any BlobStore)?
    private var exporting: SyncRequestID?
    private var answered: [SyncRequestID: Answered] = [:]
    private var answeredOrder: [SyncRequestID] = []
    private var session: SnapshotRequestSession?
    private var exportTask: Task<Void, Never>?
    private let shutdown = ShutdownFlag()

    /// A desk importing into the store through `host` and exporting the store at `storePath`
    /// (`namespaces`) through a read-only connection, sealing through `transport`, for `account`
    /// (this device's userIDHash), parking blobs as `blobs` says.
    init(host: ReplicaHost, storePath: String, namespaces: NamespaceSet, transport: SealedTransport, account: [UInt8],
         blobs: SyncDeviceBlobs, spoolDirectory: String, clock: any WallClock, monitor: DeviceMonitor) {
        self.host = host
        self.storePath = storePath
        self.namespaces = namespaces
        self.transport = transport
        self.account = account
        blobChoice = blobs
        self.spoolDirectory = spoolDirectory
        self.clock = clock
        self.monitor = monitor
    }

    /// The desk's executor: `executor`.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// The blob store, opened on first use.
    private func blobs() throws(SnapshotTransferError) -> any BlobStore {
        if let blobStore { return blobStore }
        let opened = try blobChoice.open()
        blobStore = opened
        return opened
    }

    /// Takes one accepted transfer message from `sender`.
    func receive(_ message: TransferMessage, from sender: DeviceID) async {
        switch message {
        case .request(let request):
            monitor.emit(.snapshotRequested(peer: sender))
            if let done = answered[request.requestID] {
                guard done.sibling == sender else { return }
                await transport.sendMessage(done.message.encoded(), to: sender, wake: .silent)
            } else if exporting == request.requestID {
                return
            } else if exporting != nil {
                await answer(.decline(SyncDecline(requestID: request.requestID, reason: .busy)), to: sender, remember: false)
            } else if !shutdown.isRaised {
                exporting = request.requestID
                exportTask = Task { await self.export(request, for: sender) }
            }
        case .ack(let ack):
            guard let done = answered[ack.requestID], done.sibling == sender else { return }
            if case .offer(let offer) = done.message, let blobStore { try? await blobStore.delete(offer.blobID) }
            monitor.emit(.snapshotAcknowledged(peer: sender, refusal: ack.reason.map(SnapshotAnswer.Refusal.init)))
        case .offer, .decline, .broken:
            guard session?.receive(message, from: sender) == true, let answer = session?.answers[sender] else { return }
            monitor.emit(.snapshotReply(peer: sender, answer: SnapshotAnswer(answer)))
        }
    }

    /// Exports, seals and uploads a snapshot for `request` on `exporter`, through a read-only
    /// connection to the store, and answers `sibling`.
    private func export(_ request: SyncRequest, for sibling: DeviceID) async {
        defer { exporting = nil }
        let message: TransferMessage
        do throws(SnapshotTransferError) {
            let store = try blobs()
            let (account, path, namespaces, shutdown) = (account, storePath, namespaces, shutdown)
            let cancelled = ShutdownFlag()
            message = await withTaskCancellationHandler {
                await exporter.export(request, storePath: path, namespaces: namespaces, blobStore: store, account: account,
                                      shouldStop: { shutdown.isRaised || cancelled.isRaised })
            } onCancel: {
                cancelled.raise()
            }
        } catch {
            message = .broken(SyncBroken(requestID: request.requestID, stage: .upload, error: error))
        }
        guard !shutdown.isRaised else { return }
        await answer(message, to: sibling, remember: true)
    }

    /// Sends `message` to `sibling`, remembering it for re-sends of the request.
    private func answer(_ message: TransferMessage, to sibling: DeviceID, remember: Bool) async {
        if remember {
            answered[message.requestID] = Answered(sibling: sibling, message: message)
            answeredOrder.append(message.requestID)
            while answeredOrder.count > Self.rememberedAnswers { answered[answeredOrder.removeFirst()] = nil }
        }
        monitor.emit(.snapshotAnswered(peer: sibling, answer: SnapshotAnswer(message)))
        await transport.sendMessage(message.encoded(), to: sibling, wake: .silent)
    }

    /// Asks `siblings` for a snapshot (re-sending every `interval` up to `maxSends` times), absorbs
    /// the first offer that passes its checks, acks it, and returns what the absorb did. Throws
    /// `snapshotTimedOut` (no sibling, or none answered in time), `snapshotSiblingFailed` (a
    /// sibling's export or upload failed and none offered), `snapshotDeclined` (every sibling
    /// declined), or the last absorb's error (`snapshotHashMismatch`, ...) when every offer failed
    /// its checks; each also reported as `snapshotFailed`. `deviceNotRunning` when a request is
    /// under way already. The device's codes are `SyncDeviceError`s, the absorb's
    /// `SnapshotTransferError`s (the blob, its checks) or `SyncKernelError`s (the store).
    func absorb(keys: EnvelopeKeys, siblings: [DeviceID], interval: Duration, maxSends: Int) async throws
        -> SnapshotAbsorbReport {
        guard session == nil else { throw SyncDeviceError(.deviceNotRunning, "a snapshot request is under way") }
        do {
            let report = try await runSession(keys: keys, siblings: siblings, interval: interval, maxSends: maxSends)
            session = nil
            return report
        } catch {
            session = nil
            monitor.emit(.snapshotFailed(ErrorReport(error)))
            throw error
        }
    }

    private func runSession(keys: EnvelopeKeys, siblings: [DeviceID], interval: Duration, maxSends: Int) async throws
        -> SnapshotAbsorbReport {
        let request = try SyncRequest(requestID: .random(), replyKey: keys.certificate.envelopeKey, timestamp: clock.millisecondsSince1970)
        session = SnapshotRequestSession(request: request, siblings: siblings, now: clock.millisecondsSince1970, interval: interval,
                                         maxSends: maxSends)
        var lastAbsorbError: (any Error)?
        while let current = session {
            guard !shutdown.isRaised else { throw SyncKernelError(.snapshotStopped, "the request stopped with its device") }
            let now = clock.millisecondsSince1970
            var sending = current
            let due = sending.due(now: now)
            session = sending
            for send in due {
                monitor.emit(.snapshotRequestSent(peer: send.sibling, attempt: send.attempt, wake: send.wake))
                await transport.sendMessage(TransferMessage.request(request).encoded(), to: send.sibling, wake: send.wake ? .sync : .silent)
            }
            guard let state = session?.state(now: now) else { break }
            switch state {
            case .noSiblings:
                throw SyncDeviceError(.snapshotTimedOut, "this device knows no sibling to ask; nothing was imported")
            case .timedOut:
                throw SyncDeviceError(.snapshotTimedOut, "no sibling answered the snapshot request in time; nothing was imported")
            case .refused:
                throw Self.refusal(session?.answers ?? [:], lastAbsorbError: lastAbsorbError)
            case .offered(let sibling, let offer):
                let result = try await absorbOffer(offer)
                if let error = result.error as? SyncKernelError, error.code == .snapshotStopped { throw error }
                await transport.sendMessage(TransferMessage.ack(result.ack).encoded(), to: sibling, wake: .silent)
                if let error = result.error, let reason = result.ack.reason {
                    session?.abandon(offerFrom: sibling, reason: reason)
                    lastAbsorbError = error
                    monitor.emit(.snapshotAbandoned(peer: sibling, reason: SnapshotAnswer.Refusal(reason)))
                } else {
                    monitor.emit(.snapshotAbsorbed(peer: sibling, report: result.report))
                    return result.report
                }
            case .requesting:
                let next = session?.nextDeadline(now: now) ?? now + 50
                let wait = max(1, min(next - now, 50))
                do {
                    try await Task.sleep(for: .milliseconds(wait))
                } catch {
                    throw SyncDeviceError(.snapshotTimedOut, "the snapshot request was cancelled; nothing was imported")
                }
            }
        }
        throw SyncDeviceError(.snapshotTimedOut, "the snapshot request ended; nothing was imported")
    }

    /// Fetches, checks and imports `offer`, reporting progress: the fetch, checks and decryption
    /// run on `absorber`, each import transaction on the replica host (`HostImportTarget`), which
    /// holds its siblings' frames and its timers from `beginImport` to `endImport` and goes on
    /// taking writes and answering reads between the transactions.
    private func absorbOffer(_ offer: SyncOffer) async throws(SnapshotTransferError) -> SnapshotAbsorbResult {
        let store = try blobs()
        var configured = SnapshotReceiver(blobStore: store, spoolDirectory: spoolDirectory)
        configured.rowsPerTransaction = Self.importRowsPerTransaction
        let receiver = configured
        let (account, monitor, shutdown, host) = (account, monitor, shutdown, host)
        let cancelled = ShutdownFlag()
        let stopping: @Sendable () -> Bool = { shutdown.isRaised || cancelled.isRaised }
        let target = HostImportTarget(host: host, namespaces: namespaces, stopping: stopping)
        await host.beginImport()
        let result = await withTaskCancellationHandler {
            await absorber.absorb(offer, receiver: receiver, into: target, account: account,
                                  progress: { progress in monitor.emit(.snapshotProgress(progress)) }, shouldStop: stopping)
        } onCancel: {
            cancelled.raise()
        }
        await host.endImport(handlingHeld: !stopping())
        return result
    }

    /// Ends the transfers under way: an export or absorb stops within a piece of its snapshot
    /// (`snapshotStopped`), no request is answered from now on; returns once the export ended.
    func stop() async {
        shutdown.raise()
        await exportTask?.value
    }

    /// The error of a request every sibling refused: the last absorb's error when an offer failed
    /// its checks, otherwise a sibling's failure, otherwise a decline.
    private static func refusal(_ answers: [DeviceID: SnapshotRequestSession.Answer], lastAbsorbError: (any Error)?) -> any Error {
        if let lastAbsorbError { return lastAbsorbError }
        for (_, answer) in answers.sorted(by: { $0.key < $1.key }) {
            if case .broken(let broken) = answer {
                return SyncDeviceError(.snapshotSiblingFailed, "a sibling's \(broken.stage) failed with \(broken.code); nothing was imported")
            }
        }
        return SyncDeviceError(.snapshotDeclined, "every sibling declined to send a snapshot; nothing was imported")
    }
}
