import Foundation
import KernelBench
import NatsRelay
import SyncEnvelope
import SyncKernel
import TestServers

/// `synckernel bench-flood`: what a flood of junk envelopes costs a `synckernel device` process on
/// the path a user meets (a nats-server on loopback, the device process, its gate), and what it
/// does to a sync.
///
/// Invariants: the devices are real `synckernel device` processes of this binary over a
/// `nats-server` the command starts on a free loopback port and stops; the CPU per drop is the
/// device process's CPU time (user and system, every thread, from `/proc/PID/stat`) over the
/// flood minus its CPU over an idle period of the same length with the same status polling,
/// divided by the drops its status counted; every envelope published is accounted for (counted by the gate under the expected
/// reason, or by the relay layer) before a figure is printed, else the run fails (exit 1); the
/// in-memory figures (the gate alone, the primitives alone, hot and paced beside the flood) are
/// printed beside, as diagnostics.
/// Exit 0 printed, 1 a figure could not be measured, 64 bad usage. Build with `-c release`.
enum FloodBenchCommand {
    static let usage = """
        usage: synckernel bench-flood [--envelopes N] [--crypto-envelopes N] [--rows N] [--rate N] [--json]
          Starts nats-server (from the PATH or NATS_SERVER) on a free loopback port and two `synckernel device`
          processes (laptop and phone), then:
          - per gate drop reason (unknownFormat, truncated, unopenable, foreignAccount, badMAC, replayed), publishes
            junk of that kind to the laptop's inbox and prints the laptop's CPU per drop (its CPU over the flood minus
            its idle CPU over as long) and the check's share of it (less an unknownFormat drop's, what receiving an
            envelope costs at all), beside the gate alone in this process and the primitive the check runs, hot in a
            loop and paced at the flood's rate during the flood;
          - times a sync of N rows written on the phone until the laptop holds them (`demo-write`), with no flood
            and during a flood of unopenable junk at RATE envelopes a second to the laptop (started a second before the
            write), five times each, medians side by side. Free junk is published at 20,000 a second and junk that
            needs cryptography at 5,000 a second (--crypto-rate), below what the device keeps up with, so the CPU figure is the gate's.
          The kernel counts a process's CPU in 10 ms ticks: keep the totals in the thousands for a figure to 5 %.
          --envelopes N         junk envelopes per free reason (default 20000)
          --crypto-envelopes N  junk envelopes per reason that needs cryptography (default 10000)
          --crypto-rate N       junk envelopes a second per reason that needs cryptography (default 5000)
          --rows N              rows in the timed sync (default 1000)
          --rate N              junk envelopes a second during the flooded sync (default 1000)
        """

    /// The parsed options.
    private struct Options {
        var envelopes = 20_000
        var cryptoEnvelopes = 10_000
        var cryptoRate = 5_000
        var rows = 1_000
        var rate = 1_000
        var json = false
    }

    static func run(_ arguments: [String]) async -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        var options = Options()
        do throws(UsageError) {
            let parsed = try OptionParser(arguments, options: ["envelopes", "crypto-envelopes", "crypto-rate", "rows", "rate"], flags: ["json"])
            options.envelopes = try parsed.int("envelopes", default: options.envelopes, range: 100...10_000_000)
            options.cryptoEnvelopes = try parsed.int("crypto-envelopes", default: options.cryptoEnvelopes, range: 100...1_000_000)
            options.cryptoRate = try parsed.int("crypto-rate", default: options.cryptoRate, range: 100...1_000_000)
            options.rows = try parsed.int("rows", default: options.rows, range: 1...100_000)
            options.rate = try parsed.int("rate", default: options.rate, range: 1...100_000)
            options.json = parsed.flags.contains("json")
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-flood: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        do {
            try await measure(options)
            return 0
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-flood: \(error)\n".utf8))
            return 1
        }
    }

    /// A failed measurement.
    private struct BenchError: Error, CustomStringConvertible {
        let description: String
    }

    /// One reason's row of the table.
    private struct DropFigure {
        let kind: FloodJunk.Kind
        let published: Int
        let countedByGate: Int
        let countedByRelay: Int
        let deviceMicroseconds: Double
        let gateMicroseconds: Double
        let primitive: String
        let primitiveMicroseconds: Double?
        let pacedPrimitiveMicroseconds: Double?
    }

    private static func measure(_ options: Options) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synckernel-flood-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let account = AccountDirectory(path: directory + "/account")
        _ = try account.create()
        for name in ["laptop", "phone"] { _ = try account.addDevice(name: name, expiresAt: Int64(Date().timeIntervalSince1970) + 86_400) }
        let server = try await NatsServerProcess.start()
        defer { Task { await server.stop() } }
        let laptop = try await BenchDevice.launch("laptop", directory: directory, relay: server.url)
        defer { Task { await laptop.program.stop() } }
        let rogue = try NatsRelayConnection(options: NatsRelayOptions(servers: [server.url]), inbox: "sk.bench.rogue")
        defer { rogue.close() }

        let laptopKeys = try account.envelopeKeys(name: "laptop")
        let phoneKeys = try account.envelopeKeys(name: "phone")
        let schema = try BenchDevice.schema()
        let heartbeat = SyncFrame(account: laptopKeys.userIDHash, schema: schema, body: .heartbeat).encoded()
        let junk = FloodJunk(target: laptopKeys, sender: phoneKeys, senderDevice: try account.deviceKeys(name: "phone"),
                             roster: try account.roster(for: phoneKeys), frame: heartbeat)
        let original = try junk.accepted()
        try rogue.publish(original, to: laptopKeys.inbox.value)
        guard try await laptop.waitForStatus(timeout: .seconds(30), { $0.accepted >= 1 }) != nil else {
            throw BenchError(description: "the laptop never accepted the envelope the replays copy")
        }
        let gate = try BenchGate(account: account, original: original)

        var figures: [DropFigure] = []
        for kind in FloodJunk.Kind.allCases {
            let count = kind.isFree ? options.envelopes : options.cryptoEnvelopes
            let envelopes = try junk.envelopes(kind, count: count, original: original)
            progress("\(kind.rawValue): \(count) envelopes")
            let rate = kind.isFree ? 20_000 : options.cryptoRate
            let primitive = primitive(kind, envelope: envelopes[0], keys: laptopKeys)
            let device = try await deviceCost(of: envelopes, kind: kind, rate: rate, beside: primitive?.call, laptop: laptop,
                                              rogue: rogue, inbox: laptopKeys.inbox.value)
            figures.append(DropFigure(kind: kind, published: count, countedByGate: device.gate, countedByRelay: device.relay,
                                      deviceMicroseconds: device.microseconds,
                                      gateMicroseconds: try gate.microseconds(envelopes, expected: kind.expected),
                                      primitive: primitive?.name ?? "none (length and version bytes)",
                                      primitiveMicroseconds: primitive.map { entry in perCall(2_000, entry.call) },
                                      pacedPrimitiveMicroseconds: device.primitive))
        }

        let phone = try await BenchDevice.launch("phone", directory: directory, relay: server.url)
        defer { Task { await phone.program.stop() } }
        var quiet: [Double] = []
        var flooded: [Double] = []
        var published = 0
        for round in 1...Self.syncRounds {
            progress("sync \(round) of \(Self.syncRounds): \(options.rows) rows, no flood")
            quiet.append(try await timedSync(rows: options.rows, from: phone, to: laptop))
            progress("sync \(round) of \(Self.syncRounds): \(options.rows) rows during \(options.rate) unopenable envelopes a second")
            let flood = Task {
                await publish(rate: options.rate, on: rogue, to: laptopKeys.inbox.value,
                              size: SealedEnvelope.overheadBytes + heartbeat.count)
            }
            // The flood runs a second before the write and until the laptop holds the rows.
            try await Task.sleep(for: .seconds(1))
            flooded.append(try await timedSync(rows: options.rows, from: phone, to: laptop))
            flood.cancel()
            published += await flood.value
        }
        report(figures, quiet: median(quiet), flooded: median(flooded), rate: options.rate, rows: options.rows,
               floodPublished: published, json: options.json)
    }

    /// The device's CPU per drop of `envelopes` (all of `kind`), published at `rate` a second, the
    /// drops counted by the gate and by the relay layer, and the CPU per call of `primitive` run at
    /// the same rate in this process meanwhile.
    private static func deviceCost(of envelopes: [[UInt8]], kind: FloodJunk.Kind, rate: Int, beside primitive: (@Sendable () -> Void)?,
                                   laptop: BenchDevice, rogue: NatsRelayConnection,
                                   inbox: String) async throws -> (microseconds: Double, gate: Int, relay: Int, primitive: Double?) {
        guard let before = try await laptop.currentStatus() else { throw BenchError(description: "no status from the laptop") }
        let cpuBefore = laptop.cpuSeconds
        let paced = primitive.map { PacedPrimitive(rate: rate, $0) }
        let started = ContinuousClock.now
        // Paced below what the device keeps up with, so the figure is the gate's, not a full buffer's.
        var sent = 0
        while sent < envelopes.count {
            let due = min(envelopes.count, Int(Double(rate) * seconds(since: started)) + 1)
            while sent < due {
                try rogue.publish(envelopes[sent], to: inbox)
                sent += 1
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        try rogue.flush()
        let expected = kind.expected
        let target = envelopes.count
        guard let after = try await laptop.waitForStatus(timeout: .seconds(120), { status in
            status.dropped(expected) - before.dropped(expected) + status.relayDropped - before.relayDropped >= target
        }) else {
            throw BenchError(description: "the laptop did not account for every \(kind.rawValue) envelope")
        }
        let elapsed = started.duration(to: .now)
        let busy = laptop.cpuSeconds - cpuBefore
        let pacedMicroseconds = await paced?.finish()
        // The idle period asks for the status as often as the wait above did, so both pay for it alike.
        let idleBefore = laptop.cpuSeconds
        let idleStarted = ContinuousClock.now
        while idleStarted.duration(to: .now) < elapsed {
            _ = try await laptop.currentStatus()
            try await Task.sleep(for: .milliseconds(100))
        }
        let idle = laptop.cpuSeconds - idleBefore
        let gate = after.dropped(expected) - before.dropped(expected)
        let relay = after.relayDropped - before.relayDropped
        guard gate > 0 else { throw BenchError(description: "the gate counted no \(kind.rawValue) drop") }
        return (max(0, busy - idle) / Double(gate) * 1e6, gate, relay, pacedMicroseconds)
    }

    /// The primitive behind the check of `kind`: its name and one call of it (nil for a free check).
    private static func primitive(_ kind: FloodJunk.Kind, envelope: [UInt8],
                                  keys: EnvelopeKeys) -> (name: String, call: @Sendable () -> Void)? {
        let body = envelope[2...]
        let open: @Sendable () -> [UInt8]? = {
            Sodium.open(body, publicKey: keys.deviceKeys.envelopePublicKey, secretKey: keys.deviceKeys.envelopeSecretKey)
        }
        switch kind {
        case .unknownFormat, .truncated: return nil
        case .unopenable, .foreignAccount: return ("sealed-box open (X25519)", { _ = open() })
        case .badMAC:
            let key = keys.channel.mac
            return ("sealed-box open + HMAC-SHA-512-256", {
                let plaintext = open() ?? []
                _ = Sodium.verifyTag(plaintext.prefix(Sodium.authBytes), of: plaintext[...], key: key)
            })
        case .replayed:
            let key = [UInt8](repeating: 7, count: Sodium.shortHashKeyBytes)
            return ("SipHash-2-4 of the envelope", { _ = Sodium.shortHash(envelope, key: key) })
        }
    }

    /// Timed syncs of each kind; the median is reported.
    private static let syncRounds = 5

    /// The median of `values` (not empty).
    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// Microseconds per call of `body`, over `count` calls.
    static func perCall(_ count: Int, _ body: () -> Void) -> Double {
        let started = ContinuousClock.now
        for _ in 0..<count { body() }
        let elapsed = started.duration(to: .now)
        return elapsed.seconds / Double(count) * 1e6
    }

    /// Writes `rows` rows on `from` and returns the seconds until `to` holds as many notebook rows
    /// as `from` (both read through their live status).
    private static func timedSync(rows: Int, from: BenchDevice, to: BenchDevice) async throws -> Double {
        let started = ContinuousClock.now
        guard from.program.send("demo-write \(rows)\n") else { throw BenchError(description: "the phone's input is closed") }
        guard let written = try await from.waitForStatus(timeout: .seconds(120), { $0.written > 0 }) else {
            throw BenchError(description: "the phone did not acknowledge the write")
        }
        let target = written.notebookRows
        guard try await to.waitForStatus(timeout: .seconds(300), { $0.notebookRows >= target }) != nil else {
            throw BenchError(description: "the laptop did not receive the rows")
        }
        from.resetWritten()
        return started.duration(to: .now).seconds
    }

    /// Publishes unopenable junk of `size` bytes at `rate` a second until cancelled; returns how many.
    private static func publish(rate: Int, on rogue: NatsRelayConnection, to inbox: String, size: Int) async -> Int {
        let junk = (0..<64).map { _ in [1, 0] + FloodJunk.random(size - 2) }
        var sent = 0
        let started = ContinuousClock.now
        while !Task.isCancelled {
            let due = Int(Double(rate) * seconds(since: started))
            while sent < due {
                try? rogue.publish(junk[sent % junk.count], to: inbox)
                sent += 1
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return sent
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        start.duration(to: .now).seconds
    }

    private static func progress(_ text: String) {
        FileHandle.standardError.write(Data("bench-flood: \(text)\n".utf8))
    }

    /// The CPU a drop of a check that needs cryptography costs beyond receiving the envelope:
    /// the device's CPU a drop less that of `receive` (an `unknownFormat` drop of the same size).
    private static func checkMicroseconds(_ figure: DropFigure, receive: Double?) -> Double? {
        figure.kind.isFree ? nil : receive.map { figure.deviceMicroseconds - $0 }
    }

    private static func report(_ figures: [DropFigure], quiet: Double, flooded: Double, rate: Int, rows: Int, floodPublished: Int,
                               json: Bool) {
        let receive = figures.first { $0.kind == .unknownFormat }?.deviceMicroseconds
        if json {
            let drops: [[String: Any]] = figures.map { figure in
                ["reason": figure.kind.rawValue, "published": figure.published, "gate_counted": figure.countedByGate,
                 "relay_counted": figure.countedByRelay, "device_cpu_us": figure.deviceMicroseconds,
                 "check_us": checkMicroseconds(figure, receive: receive).map { $0 as Any } ?? NSNull(),
                 "gate_alone_us": figure.gateMicroseconds, "primitive": figure.primitive,
                 "primitive_us": figure.primitiveMicroseconds.map { $0 as Any } ?? NSNull(),
                 "primitive_paced_us": figure.pacedPrimitiveMicroseconds.map { $0 as Any } ?? NSNull()]
            }
            print(JSONText.of(["drops": drops, "sync_rows": rows, "sync_quiet_s": quiet, "sync_flooded_s": flooded,
                                   "flood_rate": rate, "flood_published": floodPublished]))
            return
        }
        print("reason          published  gate counted  relay counted  device CPU us/drop  check us  gate alone us  primitive us"
              + "  primitive paced us  (primitive)")
        let cell: (Double?, Int) -> String = { value, width in
            value.map { String(format: "%\(width).1f", $0) } ?? String(repeating: " ", count: width - 1) + "-"
        }
        for figure in figures {
            print(figure.kind.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)
                  + String(format: "  %9d  %12d  %13d  %18.1f  ", figure.published, figure.countedByGate, figure.countedByRelay,
                           figure.deviceMicroseconds)
                  + cell(checkMicroseconds(figure, receive: receive), 8) + String(format: "  %13.2f  ", figure.gateMicroseconds)
                  + cell(figure.primitiveMicroseconds, 12) + "  " + cell(figure.pacedPrimitiveMicroseconds, 18)
                  + "  (\(figure.primitive))")
        }
        print("check us: the device's CPU a drop less unknownFormat's, what receiving an envelope of that size costs at all")
        print(String(format: "sync of %d rows, phone to laptop (median of %d): %.3f s without a flood, %.3f s during %d junk "
                     + "envelopes a second (%d published in all), ratio %.2f", rows, syncRounds, quiet, flooded, rate, floodPublished,
                     flooded / max(quiet, 1e-9)))
    }
}
