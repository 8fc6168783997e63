import FleetSimulation
import Foundation
import KernelBench
import NatsRelay
import NotebookNamespace
import SyncDevice
import SyncEnvelope
import SyncKernel
import TestServers

/// `synckernel bench-write`: what a local write costs on the path a user meets, a running
/// `SyncDevice` on a fresh store file on disk, and beside it on a bare `KernelStore` opened the
/// way the device opens it.
///
/// Invariants: the device is a `SyncDevice` of an account made for the run (the device and one
/// sibling that never runs), connected to a `nats-server` the command starts on a free loopback
/// port and stops before it returns (the server runs under the test-server watchdog, so it never
/// outlives the command); every store is a new file in a new folder (under `--directory`, else the
/// temporary folder), removed at the end; every write goes through the public write path
/// (`SyncDevice.write`, `KernelStore.write`) and is timed from the call to its return, that is to
/// its commit (`synchronous=FULL`); the notes are generated as `demo-write` makes them. Exit 0
/// printed, 1 a figure could not be measured, 64 bad usage. Build with `-c release`.
enum WriteBenchCommand {
    /// The command's help text.
    static let usage = """
        usage: synckernel bench-write [--rows N] [--singles M] [--directory DIR] [--only device|store] [--json]
          Starts nats-server (from the PATH or NATS_SERVER) on a free loopback port and one `SyncDevice`
          (all thirteen namespaces, one sibling that never runs) on a new store file, then:
          - writes N new notebook notes in one transaction (`device.write`) and prints rows a second;
          - writes M new notes one after another, one a transaction, and prints the median and p90 of
            the time from the call to its return (its commit);
          and beside them, as a diagnostic, the same two figures on a bare `KernelStore` opened on another
          new file as the device opens it (with the time the store spent keeping its structures current).
          --rows N         notes in the one transaction (default 20000)
          --singles M      single-note writes (default 500)
          --directory DIR  where the store files go (default: the temporary folder; must be on the disk
                           measured, not a memory file system, for the commit's fsync to count)
          --only PATH      measure one path alone: device, or store (the bare store, no nats-server: for a
                           profiler such as valgrind, which cannot follow the server's launch)
          --json           one JSON object instead of the table
        """

    /// The parsed options.
    private struct Options {
        var rows = 20_000
        var singles = 500
        var directory: String?
        /// Whether the device path is measured.
        var device = true
        /// Whether the bare store is measured.
        var store = true
        var json = false
    }

    /// The figures of one path.
    private struct Figures {
        /// Rows a second in the one transaction of `rows` notes.
        let rowsPerSecond: Double
        /// Seconds the one transaction took.
        let bulkSeconds: Double
        /// Single-write latencies in milliseconds, sorted.
        let latencies: [Double]
        /// Microseconds per row the store spent on its structures in the bulk write (bare store only).
        let upkeepMicrosecondsPerRow: Double?

        /// The latency at `fraction` (0...1) of the sorted list.
        func latency(at fraction: Double) -> Double {
            guard !latencies.isEmpty else { return 0 }
            return latencies[min(latencies.count - 1, Int((Double(latencies.count - 1) * fraction).rounded()))]
        }
    }

    /// A failed measurement.
    private struct BenchError: Error, CustomStringConvertible {
        let description: String
    }

    /// Runs the command and returns its exit status.
    static func run(_ arguments: [String]) async -> Int32 {
        let options: Options
        switch parse(arguments) {
        case .success(let parsed): options = parsed
        case .failure(let exit): return exit.status
        }
        do {
            let run = try Run(options)
            defer { run.remove() }
            var device: Figures?
            if options.device {
                let server = try await NatsServerProcess.start()
                do {
                    device = try await onDevice(options, account: run.account, namespaces: run.namespaces,
                                                store: run.directory + "/device.sqlite", relay: server.url)
                } catch {
                    await server.stop()
                    throw error
                }
                await server.stop()
            }
            report(options, directory: run.parent, device: device, bare: options.store ? try run.onStore() : nil)
            return 0
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-write: \(error)\n".utf8))
            return 1
        }
    }

    /// Runs `--only store` (the bare store alone) with no suspension point, so all of it stays on
    /// the main thread (valgrind cannot follow an async main's handoff to the runtime's threads);
    /// nil when the arguments ask for more, for `run` to do.
    static func runWithoutDevice(_ arguments: [String]) -> Int32? {
        guard case .success(let options) = parse(arguments), !options.device else { return nil }
        do {
            let run = try Run(options)
            defer { run.remove() }
            report(options, directory: run.parent, device: nil, bare: try run.onStore())
            return 0
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-write: \(error)\n".utf8))
            return 1
        }
    }

    /// Why the command ends before it measures: the help asked for (0) or bad usage (64).
    private struct EarlyExit: Error {
        /// The exit status.
        let status: Int32
    }

    /// The options the arguments give; the help or a usage error is printed here.
    private static func parse(_ arguments: [String]) -> Result<Options, EarlyExit> {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return .failure(EarlyExit(status: 0))
        }
        var options = Options()
        do throws(UsageError) {
            let parsed = try OptionParser(arguments, options: ["rows", "singles", "directory", "only"], flags: ["json"])
            options.rows = try parsed.int("rows", default: options.rows, range: 1...1_000_000)
            options.singles = try parsed.int("singles", default: options.singles, range: 1...100_000)
            if let directory = parsed.values["directory"] {
                guard !directory.isEmpty else { throw UsageError("--directory takes a folder") }
                options.directory = directory
            }
            switch parsed.values["only"] {
            case nil: break
            case "device": options.store = false
            case "store": options.device = false
            default: throw UsageError("--only takes device or store")
            }
            options.json = parsed.flags.contains("json")
            return .success(options)
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-write: \(error.message)\n\(usage)\n".utf8))
            return .failure(EarlyExit(status: 64))
        }
    }

    /// One run's folder (a new one under the parent), its account (the device and one sibling)
    /// and namespaces (all thirteen).
    private struct Run {
        /// The folder the run's folder is made in.
        let parent: String
        /// The run's folder, removed by `remove()`.
        let directory: String
        /// The account made for the run.
        let account: AccountDirectory
        /// The namespaces the stores run.
        let namespaces: NamespaceSet
        /// The options measured.
        let options: Options

        /// Makes the folder and the account.
        init(_ options: Options) throws {
            self.options = options
            parent = options.directory ?? FileManager.default.temporaryDirectory.path
            directory = (parent as NSString).appendingPathComponent("synckernel-write-\(UUID().uuidString)")
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            account = AccountDirectory(path: directory + "/account")
            do {
                _ = try account.create()
                for name in ["laptop", "phone"] {
                    _ = try account.addDevice(name: name, expiresAt: Int64(Date().timeIntervalSince1970) + 86_400)
                }
                namespaces = try NamespaceSet(FleetSimulation.standardNamespaces)
            } catch {
                try? FileManager.default.removeItem(atPath: directory)
                throw error
            }
        }

        /// The bare store's figures, on a new file in the run's folder.
        func onStore() throws -> Figures {
            try WriteBenchCommand.onStore(options, namespaces: namespaces, store: directory + "/bare.sqlite",
                                          device: try account.envelopeKeys(name: "laptop").device)
        }

        /// Removes the run's folder.
        func remove() {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// The figures through a running `SyncDevice` on `store`.
    private static func onDevice(_ options: Options, account: AccountDirectory, namespaces: NamespaceSet, store: String,
                                 relay: String) async throws -> Figures {
        var relayOptions = NatsRelayOptions(servers: [relay])
        relayOptions.connectionName = "synckernel bench-write"
        let device = SyncDevice(SyncDeviceConfiguration(account: account, name: "laptop", storePath: store, namespaces: namespaces,
                                                        relay: relayOptions))
        try await device.start()
        do {
            let maker = NoteMaker()
            let notes = maker.notes(options.rows)
            progress("device: \(options.rows) notes in one transaction")
            let started = ContinuousClock.now
            try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
                for note in notes { try tx.save(note) }
            }
            let bulk = started.duration(to: .now).seconds
            progress("device: \(options.singles) single-note writes")
            var latencies: [Double] = []
            for note in maker.notes(options.singles, from: options.rows) {
                let begun = ContinuousClock.now
                try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
                latencies.append(begun.duration(to: .now).seconds * 1_000)
            }
            await device.stop()
            return Figures(rowsPerSecond: Double(options.rows) / bulk, bulkSeconds: bulk, latencies: latencies.sorted(),
                           upkeepMicrosecondsPerRow: nil)
        } catch {
            await device.stop()
            throw error
        }
    }

    /// The figures on a bare `KernelStore` at `store`, opened and configured as the device opens
    /// its own (`KernelStore(path:namespaces:)`, then `configureDevice`).
    private static func onStore(_ options: Options, namespaces: NamespaceSet, store path: String,
                                device: DeviceID) throws -> Figures {
        let store = try KernelStore(path: path, namespaces: namespaces)
        defer { store.close() }
        try store.configureDevice(device)
        let maker = NoteMaker()
        let notes = maker.notes(options.rows)
        progress("bare store: \(options.rows) notes in one transaction")
        let upkeepBefore = store.structureUpkeepTime
        let started = ContinuousClock.now
        try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
            for note in notes { try tx.save(note) }
        }
        let bulk = started.duration(to: .now).seconds
        let upkeep = (store.structureUpkeepTime - upkeepBefore).seconds * 1e6 / Double(options.rows)
        progress("bare store: \(options.singles) single-note writes")
        var latencies: [Double] = []
        for note in maker.notes(options.singles, from: options.rows) {
            let begun = ContinuousClock.now
            try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
            latencies.append(begun.duration(to: .now).seconds * 1_000)
        }
        return Figures(rowsPerSecond: Double(options.rows) / bulk, bulkSeconds: bulk, latencies: latencies.sorted(),
                       upkeepMicrosecondsPerRow: upkeep)
    }

    /// Prints the figures as a table, or one JSON object.
    private static func report(_ options: Options, directory: String, device: Figures?, bare: Figures?) {
        if options.json {
            /// One path's figures as a JSON object.
            func object(_ figures: Figures) -> [String: Any] {
                var object: [String: Any] = [
                    "rows_per_second": (figures.rowsPerSecond * 10).rounded() / 10, "bulk_seconds": figures.bulkSeconds,
                    "single_median_ms": figures.latency(at: 0.5), "single_p90_ms": figures.latency(at: 0.9),
                ]
                if let upkeep = figures.upkeepMicrosecondsPerRow { object["structure_upkeep_us_per_row"] = upkeep }
                return object
            }
            var root: [String: Any] = ["rows": options.rows, "singles": options.singles, "directory": directory]
            if let device { root["device"] = object(device) }
            if let bare { root["bare_store"] = object(bare) }
            if let data = try? JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]) {
                print(String(decoding: data, as: UTF8.self))
            }
            return
        }
        print("local writes, stores in \(directory) (\(options.rows) notes in one transaction, \(options.singles) single-note writes)")
        print("path          rows/s (one transaction)   single write median   p90")
        for (name, figures) in [("device", device), ("bare store", bare)] {
            guard let figures else { continue }
            let rate = String(format: "%.0f (%.2f s)", figures.rowsPerSecond, figures.bulkSeconds)
            let median = String(format: "%.2f ms", figures.latency(at: 0.5))
            let p90 = String(format: "%.2f ms", figures.latency(at: 0.9))
            print(name.padding(toLength: 14, withPad: " ", startingAt: 0) + rate.padding(toLength: 27, withPad: " ", startingAt: 0)
                  + median.padding(toLength: 22, withPad: " ", startingAt: 0) + p90)
        }
        if let upkeep = bare?.upkeepMicrosecondsPerRow {
            print(String(format: "bare store: structure upkeep %.1f us a row of the one transaction", upkeep))
        }
    }

    /// A progress line on standard error.
    private static func progress(_ text: String) {
        FileHandle.standardError.write(Data("bench-write: \(text)\n".utf8))
    }
}

/// Notes as `demo-write` makes them: a random 16-byte id, a title naming the run and the note's
/// index, a short body, created and updated at the run's start (whole seconds).
private struct NoteMaker {
    /// The run's batch, in every title.
    let batch = String(UInt64.random(in: .min ... .max), radix: 16)
    /// The run's start.
    let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))

    /// `count` new notes, indexed from `first`.
    func notes(_ count: Int, from first: Int = 0) -> [Note] {
        (first..<first + count).map { index in
            Note(id: (0..<16).map { _ in UInt8.random(in: .min ... .max) }, title: "demo \(batch) \(index)",
                 body: "generated by demo-write", createdAt: now, updatedAt: now)
        }
    }
}
