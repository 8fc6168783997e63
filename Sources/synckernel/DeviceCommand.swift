import SyncRelay
import Dispatch
import FleetSimulation
import Foundation
import NatsRelay
import Synchronization
import SyncDevice
import SyncEnvelope
import SnapshotTransfer
import SyncJoin
import SyncKernel

/// `synckernel device`: runs one device (`SyncDevice`) until SIGINT, SIGTERM or `quit`.
///
/// Invariants: a thin layer over `SyncDevice`: every sync decision is the library's; the process
/// exits 0 only after `SyncDevice.stop()` returned (loop ended, relay closed, store closed), so
/// every write acknowledged with a `written` line is in the store; a stop (SIGINT, SIGTERM,
/// `quit`) is taken in every phase, the join and the snapshot transfer included; standard output carries only
/// JSON lines (events with `--events json`, and the answer to every input line), standard error
/// the log; the end of standard input stops nothing; every input line is bounded and checked, and
/// an unknown one gets a JSON error line; bad arguments give the usage and exit 64, a device
/// that cannot start exit 1.
enum DeviceCommand {
    /// The command's help text.
    static let usage = """
        usage: synckernel device --account DIR --name NAME --db PATH --relay nats://HOST:PORT[,nats://HOST:PORT...]
                                 [--join CERTFILE] [--blobs folder:PATH|jetstream] [--auto-approve]
                                 [--events json] [--each-drop] [--namespaces all|NAME,NAME]
                                 [--debounce-ms N] [--retry-ms N] [--max-retry-ms N]
                                 [--creds FILE | --user USER --password-file FILE | --token-file FILE]
                                 [--tls-ca FILE] [--tls-cert FILE --tls-key FILE] [--tls-hostname NAME]
          Runs device NAME of the account in DIR on the store PATH (created when missing), syncing
          through the NATS relay at the given URLs (several: nodes of one cluster), until SIGINT,
          SIGTERM or `quit`. Logs rounds, storms, drops and relay changes to standard error.
          --join CERTFILE ask to join the account of the sign-in credential CERTFILE (made by
                          `synckernel account sign-in-cert` on a device of the account): DIR must be
                          missing or empty; waits for a sibling's user to approve (exit 1 when
                          rejected, refused, unanswered or undecided, with the cause on standard
                          error and nothing written), writes DIR, starts, asks
                          the siblings for a snapshot and absorbs it (a progress bar on standard
                          error when it is a terminal), then runs like any device
          --blobs         where snapshots are parked: folder:PATH (default: the folder
                          synckernel-blobs beside the store; only devices sharing it can use it)
                          or jetstream (the relay's servers, which must run JetStream: -js)
          --join-retry-ms      the wait between two sends of the sign-in request while no sibling answered
                               (default 5000; 7 sends, then the wait ends one interval later: no
                               sibling online); once a sibling answers, its user has 180 s from the
                               first send to decide; the remaining wait is logged every 5 s
          --snapshot-retry-ms  the wait between two sends of the snapshot request (default 5000; 7 sends)
          --auto-approve  approve every sign-in request that passes the checks, without asking:
                          FOR DEMOS AND TESTS ONLY (anyone holding a sign-in credential gets in)
          --events json   print every event as one JSON object per line on standard output
          --each-drop     report every envelope the gate drops as its own `envelope_dropped` event
                          (default: drops are counted in `status` and summarised, at most once
                          every 5 seconds, by one `drops_summarised` event and one log line)
          --namespaces    the namespaces to sync (default: all thirteen); siblings must agree
          --debounce-ms   the wait between a local write and the digest it sends (default 400)
          --retry-ms, --max-retry-ms   the first and the longest delay before the digest goes again
                          to a sibling still out of sync (default 2000 and 30000)
          Standard input takes one command per line (at most 4,096 bytes), each answered with one
          JSON line on standard output:
            demo-write N  N notebook inserts and edits (1 to 100,000), answered once committed
            demo-fill N   N generated rows spread over ten namespaces (1 to 1,000,000), answered once committed
            bench-rows OP SEED STREAM FIRST COUNT BYTES VARIANT   notebook rows of BYTES encoded bytes numbered
                          FIRST to FIRST+COUNT-1 of a seeded stream, OP insert, edit or delete (`synckernel bench-e2e`)
            status        the status object (as `synckernel status --json`, with the live counters)
            approve ID    admit the device of the `approval_requested` event with this id
            reject ID     refuse it (nothing is recorded)
            quit          stop the device and exit 0
          SIGINT, SIGTERM and `quit` stop the device within about two seconds whatever it is doing
          (waiting for approval, joining, absorbing or exporting a snapshot, running, reconnecting):
          a join under way ends with nothing written, a snapshot import keeps what it committed
          (the digest loop fills the rest), and the store is closed before the process exits.
          exit status: 0 stopped cleanly (also when stopped before it joined or started), 1 the
          device could not join or start, 3 another process has the store open for writing (its
          pid in the message where the system tells it), 64 bad usage
        """

    /// The parsed command line.
    private struct Arguments {
        var configuration: SyncDeviceConfiguration
        var jsonEvents: Bool
        var join: String?
        var autoApprove: Bool
    }

    /// Blocks SIGINT and SIGTERM on the calling thread, which must be the main thread, before the
    /// command runs: the threads the runtime and the relay client start later inherit the mask,
    /// so neither signal ends the process by its default action; they stay pending until the
    /// command's dispatch signal sources take them.
    static func holdStopSignals() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Runs the command and returns its exit status (`holdStopSignals()` ran first).
    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let parsed: Arguments
        do throws(UsageError) {
            parsed = try parse(arguments)
        } catch {
            FileHandle.standardError.write(Data("synckernel device: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        let output = DeviceOutput(device: parsed.configuration.name)
        let stop = Latch()
        let ready = Latch()
        let sources = [SIGINT, SIGTERM].map { signal in
            let source = DispatchSource.makeSignalSource(signal: signal, queue: .global())
            source.setEventHandler { stop.open() }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }

        let device = SyncDevice(parsed.configuration)
        let events = device.events
        let progressBar = isatty(STDERR_FILENO) == 1
        let printer = Task {
            for await event in events {
                if parsed.jsonEvents { output.line(event.json()) }
                if case .snapshotProgress(let progress) = event {
                    if progressBar { output.progress(bar(progress)) }
                } else if let text = logLine(event, store: parsed.configuration.storePath, device: output.device) {
                    if progressBar, event.name.hasPrefix("snapshot_") { output.progress("") }
                    output.log(text)
                }
                if parsed.autoApprove, case .approvalRequested(let approval) = event {
                    Task {
                        do {
                            try await device.approve(approval.id)
                        } catch {
                            output.log("could not approve \(approval.id): \(words(error))")
                        }
                    }
                }
                if event == .stopped { return }
            }
        }
        // Standard input is read from the start, so `quit` stops every phase; other commands wait
        // until the device is ready (joined, started and, after a join, done absorbing).
        let commands = Task { await readCommands(device: device, output: output, stop: stop, ready: ready) }
        let startup = Task { await startUp(device, join: parsed.join, output: output) }
        let watcher = Task {
            await stop.wait()
            ready.open()
            startup.cancel()
        }
        let started = await startup.value
        if case .failed(let status) = started, !stop.isOpen {
            stop.open()
            await commands.value
            printer.cancel()
            return status
        }
        guard case .running = started, !stop.isOpen else {
            // Stopped before the device ran: nothing was joined or written.
            output.log("stopped before the device started")
            stop.open()
            await commands.value
            await device.stop()
            printer.cancel()
            return 0
        }
        let absorbing = Task {
            defer { ready.open() }
            guard parsed.join != nil else { return }
            do {
                let report = try await device.absorbSnapshot()
                output.log("absorbed a snapshot of \(report.rows) rows")
            } catch {
                guard !stop.isOpen else { return }
                output.log("no snapshot (the digest loop fills the store instead): \(words(error))")
            }
        }
        await stop.wait()
        absorbing.cancel()
        await commands.value
        await device.stop()
        watcher.cancel()
        // The printer ends after writing `stopped`, the last event.
        await printer.value
        return 0
    }

    /// How starting the device ended.
    private enum Startup {
        /// The device runs.
        case running
        /// Joining or starting failed: the exit status.
        case failed(Int32)
        /// A stop came first.
        case interrupted
    }

    /// Joins the account when `join` names a credential, then starts the device; a cancellation
    /// (the stop) ends a join under way with nothing written.
    private static func startUp(_ device: SyncDevice, join: String?, output: DeviceOutput) async -> Startup {
        if let join {
            do {
                let credential = try SignInCredential.read(from: join)
                let joined = try await device.join(credential)
                output.log("joined the account as \(joined.name) (device \(joined.device.hex))")
            } catch {
                if Task.isCancelled { return .interrupted }
                output.log("could not join: \(words(error))")
                return .failed(1)
            }
        }
        guard !Task.isCancelled else { return .interrupted }
        do {
            try await device.start()
        } catch let error as SyncKernelError where error.code == .storeInUse {
            output.log("could not start: the store \(device.configuration.storePath) is open for writing in another process "
                       + "(\(error.detail); one process per store); nothing was written (\(error.code))")
            return .failed(storeInUseStatus)
        } catch {
            output.log("could not start: \(words(error))")
            return .failed(1)
        }
        return .running
    }

    /// The exit status when another process has the store open for writing.
    static let storeInUseStatus: Int32 = 3

    /// Reads standard input until the stop: `quit` opens the stop at once, whatever the device is
    /// doing; every other line is answered once the device is ready, one command at a time (the
    /// reader holds at most one more line while a command runs).
    private static func readCommands(device: SyncDevice, output: DeviceOutput, stop: Latch, ready: Latch) async {
        let taken = DispatchSemaphore(value: 0)
        let lines = DeviceInput.lines(from: STDIN_FILENO, taken: taken)
        let reader = Task {
            var running: Task<Void, Never>?
            for await line in lines {
                defer { taken.signal() }
                if case .text(let text) = line, text.split(whereSeparator: \.isWhitespace) == ["quit"] {
                    stop.open()
                    break
                }
                await running?.value
                guard !stop.isOpen else { break }
                running = Task {
                    await ready.wait()
                    guard !stop.isOpen else { return }
                    await handle(line, device: device, output: output, stop: stop)
                }
            }
            await running?.value
        }
        await stop.wait()
        reader.cancel()
        await reader.value
    }

    /// Answers one input line.
    private static func handle(_ line: DeviceInput.Line, device: SyncDevice, output: DeviceOutput, stop: Latch) async {
        guard case .text(let text) = line else {
            output.line(JSONLine.encode(["event": "error", "error": "line longer than \(DeviceInput.maxLineBytes) bytes"]))
            return
        }
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
        switch words.first {
        case "status" where words.count == 1:
            do throws(SyncKernelError) {
                output.line(try await device.currentStatus().json())
            } catch {
                output.line(JSONLine.encode(["event": "error", "error": error.code.rawValue]))
            }
        case "demo-write" where words.count == 2:
            guard let count = Int(words[1]), (1...DemoWriter.maxOperations).contains(count) else {
                output.line(JSONLine.encode(["event": "error", "error": "demo-write takes N from 1 to \(DemoWriter.maxOperations)"]))
                return
            }
            do {
                let outcome = try await DemoWriter(device: device).write(count) { stop.isOpen }
                output.line(JSONLine.encode(["event": "written", "count": outcome.inserted + outcome.edited,
                                             "inserted": outcome.inserted, "edited": outcome.edited, "batch": outcome.batch,
                                             "interrupted": outcome.interrupted]))
            } catch {
                report(error, of: "demo-write", device: device, output: output)
            }
        case "demo-fill" where words.count == 2:
            guard let count = Int(words[1]), (1...DemoFiller.maxRows).contains(count) else {
                output.line(JSONLine.encode(["event": "error", "error": "demo-fill takes N from 1 to \(DemoFiller.maxRows)"]))
                return
            }
            do {
                let outcome = try await DemoFiller(device: device).fill(count) { stop.isOpen }
                output.line(JSONLine.encode(["event": "filled", "rows": outcome.rows, "namespaces": outcome.namespaces,
                                             "interrupted": outcome.interrupted]))
            } catch {
                report(error, of: "demo-fill", device: device, output: output)
            }
        case "bench-rows":
            guard let request = BenchRowsWriter.Request(Array(words.dropFirst())) else {
                output.line(JSONLine.encode(["event": "error", "error": BenchRowsWriter.usage]))
                return
            }
            do {
                let outcome = try await BenchRowsWriter(device: device).write(request) { stop.isOpen }
                output.line(JSONLine.encode(["event": "bench_rows", "operation": request.operation.rawValue, "rows": outcome.rows,
                                             "interrupted": outcome.interrupted]))
            } catch {
                report(error, of: "bench-rows", device: device, output: output)
            }
        case "approve" where words.count == 2, "reject" where words.count == 2:
            let approving = words[0] == "approve"
            guard let id = ApprovalID(parsing: String(words[1])) else {
                output.line(JSONLine.encode(["event": "error", "error": "\(words[0]) takes the 8 hex digits of an approval_requested id"]))
                return
            }
            do {
                if approving { try await device.approve(id) } else { try await device.reject(id) }
                output.line(JSONLine.encode(["event": approving ? "approve_done" : "reject_done", "id": id.value]))
            } catch {
                output.line(JSONLine.encode(["event": "error", "error": ErrorReport(error).code, "id": id.value]))
            }
        case nil:
            return
        default:
            output.line(JSONLine.encode(["event": "error",
                                         "error": "unknown command: the commands are demo-write N, demo-fill N, bench-rows ..., status, approve ID, reject ID, quit"]))
        }
    }

    /// The log line of an event, for those the log shows (rounds, storms, drops, relay changes,
    /// refusals and failures).
    private static func logLine(_ event: SyncDeviceEvent, store: String, device name: String) -> String? {
        switch event {
        case .started(let device): "started as device \(device.hex)"
        case .stopped: "stopped"
        case .relayConnected, .relayDisconnected, .relayReconnected, .relayClosed: "relay: \(event.name)"
        case .envelopeDropped: nil
        case .dropsSummarised(let envelopes, let relay, let period): dropSummary(envelopes: envelopes, relay: relay, periodMillis: period)
        case .sealFailed(let recipient, let error): "could not seal a frame for \(recipient.hex): \(error.code)"
        case .sessionRefused(let sibling): "refused a session handshake of \(sibling.hex)"
        case .roundStarted(let peer): "round started with \(peer)"
        case .roundCompleted(let peer): "round completed with \(peer)"
        case .stormSuspected(let peer, let namespaces, _): "storm suspected with \(peer) over \(namespaces.joined(separator: ","))"
        case .applied: nil
        case .storeFailed(let error) where error.carries(SyncKernelError.Code.storageFull) || error.carries(SyncKernelError.Code.storeReadOnly),
             .applyFailed(_, _, let error) where error.carries(SyncKernelError.Code.storageFull) || error.carries(SyncKernelError.Code.storeReadOnly):
            storeProblem(error, doing: "a sibling's rows could not be stored", store: store)
        case .frameRefused, .siblingCapabilities, .schemaMismatch, .applyFailed, .storeFailed, .storeRolledBack, .versionsCollided,
             .rowsQuarantined, .concurrentEdit, .conflictResolved, .operationsRefused, .backfillConflict:
            fields(event)
        case .siblingLearned(let device): "learned sibling \(device.hex)"
        case .transferDropped: fields(event)
        case .signInDropped, .approvalRequested, .approved, .approvalRejected, .approvalExpired, .approvalWithdrawn,
             .signInLedgerLearned:
            JoinLogLine.responder(event, device: name)
        case .joinRequestSent, .joinAcknowledged, .joinReplyDropped, .joinGranted, .joinWaiting, .joinRejected, .joinRefused,
             .joinTimedOut, .joinStoreFailed:
            JoinLogLine.requester(event)
        case .snapshotRequested(let peer): "snapshot requested by \(peer)"
        case .snapshotAnswered(let peer, _): "snapshot answer to \(peer): \(EventFields.text(event, keys: answerKeys))"
        case .snapshotAcknowledged(let peer, let refusal): "snapshot ack from \(peer): ok \(refusal == nil)"
        case .snapshotRequestSent(let peer, let attempt, _): "snapshot request to \(peer) (attempt \(attempt))"
        case .snapshotReply(let peer, _): "snapshot reply from \(peer): \(EventFields.text(event, keys: answerKeys))"
        case .snapshotProgress: nil
        case .snapshotAbsorbed(let peer, let report): "absorbed \(report.rows) rows from \(peer)"
        case .snapshotAbandoned(let peer, _): "snapshot from \(peer) refused: \(EventFields.text(event, keys: ["reason"])); nothing imported"
        case .snapshotFailed(let error): "snapshot failed: \(words(error))"
        }
    }

    /// Answers a write command that failed with `error`: the JSON error line, and for a full or
    /// read-only store a sentence naming the store on standard error (the device keeps running).
    private static func report(_ error: any Error, of command: String, device: SyncDevice, output: DeviceOutput) {
        let reported = ErrorReport(error)
        output.line(JSONLine.encode(["event": "error", "error": reported.code, "name": reported.name]))
        guard reported.carries(SyncKernelError.Code.storageFull) || reported.carries(SyncKernelError.Code.storeReadOnly) else { return }
        output.log(storeProblem(reported, doing: "\(command) failed", store: device.configuration.storePath))
    }

    /// An error of any module as the log shows it: its fixed detail, then its stable code and name.
    static func words(_ error: any Error) -> String {
        words(ErrorReport(error))
    }

    /// A reported error as the log shows it: its fixed detail, then its stable code and name.
    static func words(_ report: ErrorReport) -> String {
        let reason = report.name.isEmpty ? report.code : "\(report.code) \(report.name)"
        return report.detail.isEmpty ? reason : "\(report.detail) (\(reason))"
    }

    /// An event as its stable name and its fields: `name: key value, ...`.
    static func fields(_ event: SyncDeviceEvent) -> String {
        "\(event.name): " + EventFields.text(event)
    }

    /// The fields a snapshot answer's log line shows.
    private static let answerKeys = ["answer", "reason", "stage", "error", "bytes"]

    /// The log line summarising a period's drops: the total, then each reason's count, most first.
    static func dropSummary(envelopes: [EnvelopeDropReason: Int], relay: [RelayDropReason: Int], periodMillis: Int64) -> String {
        let seconds = String(format: "%.1f", Double(periodMillis) / 1_000)
        var parts: [String] = []
        if !envelopes.isEmpty {
            let counts = envelopes.sorted { ($1.value, $0.key.name) < ($0.value, $1.key.name) }.map { "\($0.value) \($0.key.name)" }
            parts.append("dropped \(envelopes.values.reduce(0, +)) envelopes (" + counts.joined(separator: ", ") + ")")
        }
        if !relay.isEmpty {
            let counts = relay.sorted { ($1.value, $0.key.rawValue) < ($0.value, $1.key.rawValue) }.map { "\($0.value) \($0.key.rawValue)" }
            parts.append("the relay layer dropped \(relay.values.reduce(0, +)) (" + counts.joined(separator: ", ") + ")")
        }
        return parts.joined(separator: "; ") + " in the last \(seconds) s"
    }

    /// The sentence for a store that ran out of room or refuses writes; nil for other errors.
    static func storeProblem(_ error: ErrorReport, doing what: String, store: String) -> String {
        let name = "the store \(store)"
        let code = "\(error.code) \(error.name)"
        if error.carries(SyncKernelError.Code.storageFull) {
            return "\(what): \(name) is on a full disk; nothing of it was stored, and writes succeed again once there is room "
                + "(\(code))"
        }
        return "\(what): \(name) refuses writes (read-only file, folder or file system); nothing of it was stored (\(code))"
    }

    /// A one-line progress bar for a snapshot being absorbed.
    private static func bar(_ progress: SnapshotProgress) -> String {
        let width = 30
        let fraction = progress.totalBytes.map { $0 > 0 ? min(1, Double(progress.bytes) / Double($0)) : 1 } ?? 0
        let filled = Int(fraction * Double(width))
        return "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            + String(format: "%3d%% %@ %.1f MB, %lld rows", Int(fraction * 100), progress.phase.rawValue,
                     Double(progress.bytes) / 1_000_000, progress.rows)
    }

    /// Parses the command line; a `UsageError` names the first mistake.
    private static func parse(_ arguments: [String]) throws(UsageError) -> Arguments {
        let options = try OptionParser(arguments, options: ["account", "name", "db", "relay", "events", "namespaces", "creds", "user",
                                                            "password-file", "token-file", "tls-ca", "tls-cert", "tls-key",
                                                            "tls-hostname", "debounce-ms", "retry-ms", "max-retry-ms", "join", "blobs",
                                                            "snapshot-retry-ms", "join-retry-ms"],
                                       flags: ["auto-approve", "each-drop"])
        guard let account = options.values["account"], !account.isEmpty else { throw UsageError("--account DIR is required") }
        guard let name = options.values["name"] else { throw UsageError("--name NAME is required") }
        guard AccountDirectory.isValidDeviceName(name) else { throw UsageError("NAME is 1 to 64 letters, digits, - or _") }
        guard let db = options.values["db"], !db.isEmpty else { throw UsageError("--db PATH is required") }
        guard let relay = options.values["relay"] else { throw UsageError("--relay nats://HOST:PORT is required") }
        let servers = relay.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard !servers.isEmpty, servers.count <= 64,
              servers.allSatisfy({ ($0.hasPrefix("nats://") || $0.hasPrefix("tls://")) && $0.count > 7 && !$0.contains(where: \.isWhitespace) })
        else { throw UsageError("--relay takes nats:// or tls:// URLs separated by commas") }
        let jsonEvents: Bool
        switch options.values["events"] {
        case nil: jsonEvents = false
        case "json": jsonEvents = true
        default: throw UsageError("--events takes json")
        }
        var relayOptions = NatsRelayOptions(servers: servers)
        relayOptions.connectionName = "synckernel device"
        relayOptions.credentials = try credentials(options)
        relayOptions.tls = try tls(options)
        var configuration = SyncDeviceConfiguration(account: AccountDirectory(path: account), name: name, storePath: db,
                                                    namespaces: try namespaces(options.values["namespaces"]), relay: relayOptions)
        configuration.timing.debounceMillis = Int64(try options.int("debounce-ms", default: 400, range: 0...600_000))
        configuration.timing.retryMillis = Int64(try options.int("retry-ms", default: 2_000, range: 10...3_600_000))
        configuration.timing.maxRetryMillis = Int64(try options.int("max-retry-ms", default: 30_000, range: 10...3_600_000))
        guard configuration.timing.maxRetryMillis >= configuration.timing.retryMillis else {
            throw UsageError("--max-retry-ms is at least --retry-ms")
        }
        configuration.snapshotInterval = .milliseconds(try options.int("snapshot-retry-ms", default: 5_000, range: 10...600_000))
        switch options.values["blobs"] {
        case nil: break
        case "jetstream": configuration.blobs = .jetStream(relayOptions)
        case let value? where value.hasPrefix("folder:") && value.count > 7: configuration.blobs = .folder(String(value.dropFirst(7)))
        default: throw UsageError("--blobs takes folder:PATH or jetstream")
        }
        if let join = options.values["join"], join.isEmpty { throw UsageError("--join takes a credential file") }
        configuration.joinPolicy.resendIntervalMillis = Int64(try options.int("join-retry-ms", default: 5_000, range: 10...25_000))
        configuration.reportsEachDrop = options.flags.contains("each-drop")
        return Arguments(configuration: configuration, jsonEvents: jsonEvents, join: options.values["join"],
                         autoApprove: options.flags.contains("auto-approve"))
    }

    /// The namespaces `--namespaces` names (all standard ones by default).
    private static func namespaces(_ value: String?) throws(UsageError) -> NamespaceSet {
        let standard = FleetSimulation.standardNamespaces
        let names = standard.map { namespace in namespace.name }
        var chosen: [any SyncNamespace.Type] = standard
        if let value, value != "all" {
            let wanted = value.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard Set(wanted).count == wanted.count else { throw UsageError("--namespaces names a namespace twice") }
            chosen = []
            for name in wanted {
                guard let index = names.firstIndex(of: name) else {
                    throw UsageError("--namespaces takes all or names among \(names.joined(separator: ","))")
                }
                chosen.append(standard[index])
            }
        }
        do throws(SyncKernelError) {
            return try NamespaceSet(chosen)
        } catch {
            throw UsageError("--namespaces: \(error)")
        }
    }

    /// The credentials the options name (a secret only ever from a file, never the command line).
    private static func credentials(_ options: OptionParser) throws(UsageError) -> NatsRelayOptions.Credentials {
        let given = ["creds", "user", "token-file"].filter { options.values[$0] != nil }
        guard given.count <= 1 else { throw UsageError("give one of --creds, --user or --token-file") }
        if let path = options.values["creds"] { return .credentialsFile(path: path) }
        if let path = options.values["token-file"] { return .token(try secret(path, option: "--token-file")) }
        if let user = options.values["user"] {
            guard let path = options.values["password-file"] else { throw UsageError("--user needs --password-file") }
            return .userPassword(user: user, password: try secret(path, option: "--password-file"))
        }
        guard options.values["password-file"] == nil else { throw UsageError("--password-file needs --user") }
        return .none
    }

    /// The first line of the file at `path`, at most 4,096 bytes, not empty.
    private static func secret(_ path: String, option: String) throws(UsageError) -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw UsageError("\(option): the file cannot be read") }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 4_097), data.count <= 4_096,
              let line = String(data: data, encoding: .utf8)?.split(whereSeparator: \.isNewline).first, !line.isEmpty else {
            throw UsageError("\(option): the file holds no secret of at most 4,096 bytes")
        }
        return String(line)
    }

    /// The TLS settings the options name, nil when none.
    private static func tls(_ options: OptionParser) throws(UsageError) -> NatsRelayOptions.TLS? {
        let tls = NatsRelayOptions.TLS(trustedCertificatesFile: options.values["tls-ca"], certificateChainFile: options.values["tls-cert"],
                                       privateKeyFile: options.values["tls-key"], expectedHostname: options.values["tls-hostname"])
        guard tls != NatsRelayOptions.TLS() else { return nil }
        guard (tls.certificateChainFile == nil) == (tls.privateKeyFile == nil) else {
            throw UsageError("--tls-cert and --tls-key go together")
        }
        return tls
    }
}
