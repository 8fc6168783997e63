import Foundation
import NatsRelay
import NotebookNamespace
import SnapshotTransfer
import SyncKernel
import SyncKernelSimulator
import TestServers

/// `synckernel bench-absorb --rows N`: a store of N notebook rows exported by a sibling, sealed,
/// stored in a blob store, fetched, checked and imported into a fresh store, with each step timed
/// and each side's peak memory measured; over the folder blob store and over NATS JetStream (a
/// `nats-server -js` the command starts on a free loopback port and stops, or `--nats URL`).
///
/// Invariants: the source store is loaded before anything is measured and its load reported
/// apart; each side's peak resident memory is measured from a reset after the heap was trimmed
/// (the source store is closed before the receiver starts, as on two devices); exit code 0 when
/// every absorbed store's digest equals the source's, 1 when one differs, 2 when the run failed,
/// 64 on bad usage. Numbers go to standard output, progress to standard error. Build with
/// `-c release`.
enum AbsorbBenchCommand {
    static let usage = """
        usage: synckernel bench-absorb --rows N [--seed S] [--stores folder,jetstream] [--nats URL]
                                       [--directory DIR] [--chunk-kib K] [--json]
          --rows N        notebook rows in the source store (about 230 bytes each)
          --stores        the blob stores to run (default folder,jetstream; jetstream needs nats-server on the
                          PATH, or NATS_SERVER, or --nats)
          --nats URL      a running nats-server with JetStream to use instead of starting one
          --directory     where the stores, blobs and spool go (default: a new folder in the temporary folder)
          --chunk-kib K   plaintext KiB per sealed chunk (default 1024)
        prints per store: sealed size, export, seal, upload, download, verify and import seconds, the total
        (wall) and the CPU seconds of both sides, the sender's and the receiver's peak resident memory,
        whether the digests are equal
        """

    /// Words the notes are made of.
    private static let words = ["sync", "merkle", "vector", "clock", "device", "relay", "digest", "leaf",
                                "bucket", "merge", "tombstone", "offload", "body", "note", "skew", "round"]

    static func run(_ arguments: [String]) async -> Int32 {
        let options: OptionParser
        let rows: Int
        let seed: UInt64
        let chunkBytes: Int
        let stores: [String]
        do throws(UsageError) {
            options = try OptionParser(arguments, options: ["rows", "seed", "stores", "nats", "directory", "chunk-kib"],
                                       flags: ["json", "help"])
            if options.flags.contains("help") {
                print(usage)
                return 0
            }
            guard options.values["rows"] != nil else { throw UsageError("--rows is required") }
            rows = try options.int("rows", default: 0, range: 1...10_000_000)
            seed = UInt64(try options.int("seed", default: 1, range: 0...Int.max))
            chunkBytes = try options.int("chunk-kib", default: 1_024, range: 1...4_096) * 1_024
            stores = (options.values["stores"] ?? "folder,jetstream").split(separator: ",").map(String.init)
            guard !stores.isEmpty, stores.allSatisfy({ $0 == "folder" || $0 == "jetstream" }) else {
                throw UsageError("--stores lists folder and/or jetstream")
            }
        } catch {
            FileHandle.standardError.write(Data("synckernel bench-absorb: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        let directory = options.values["directory"] ?? NSTemporaryDirectory() + "synckernel-absorb-\(UUID().uuidString)"
        let madeDirectory = options.values["directory"] == nil
        defer { if madeDirectory { try? FileManager.default.removeItem(atPath: directory) } }
        var server: NatsServerProcess?
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let namespaces = try NamespaceSet([NotebookNamespace.self])
            let sourcePath = directory + "/source.sqlite"
            let (digest, loadSeconds) = try load(rows: rows, seed: seed, path: sourcePath, namespaces: namespaces)
            progress("loaded \(rows) rows in \(String(format: "%.1f", loadSeconds)) s (peak \(String(format: "%.0f", ProcessMemory.peakMebibytes)) MB)")
            var results: [AbsorbBenchResult] = []
            for kind in stores {
                let blobStore: any BlobStore
                if kind == "folder" {
                    blobStore = try FolderBlobStore(directory: directory + "/blobs")
                } else {
                    let url: String
                    if let given = options.values["nats"] {
                        url = given
                    } else {
                        guard let started = try? await NatsServerProcess.start(jetStream: true) else {
                            progress("jetstream skipped: no nats-server to start (install nats-server or pass --nats URL)")
                            continue
                        }
                        server = started
                        url = started.url
                    }
                    blobStore = try JetStreamBlobStore(relay: NatsRelayOptions(servers: [url]))
                }
                let result = try await transfer(store: kind, blobStore: blobStore, rows: rows, sourcePath: sourcePath, namespaces: namespaces,
                                          digest: digest, directory: directory, chunkBytes: chunkBytes)
                progress("\(kind): \(String(format: "%.1f", result.totalSeconds)) s")
                results.append(result)
            }
            await server?.stop()
            if options.flags.contains("json") {
                print("[" + results.map { $0.json() }.joined(separator: ",\n ") + "]")
            } else {
                print("bench-absorb: \(rows) notebook rows (seed \(seed)); source loaded in \(String(format: "%.1f", loadSeconds)) s, apart")
                print(AbsorbBenchResult.header)
                for result in results { print(result.line()) }
            }
            return results.allSatisfy(\.digestMatches) ? 0 : 1
        } catch {
            await server?.stop()
            FileHandle.standardError.write(Data("synckernel bench-absorb: \(error)\n".utf8))
            return 2
        }
    }

    /// Loads `rows` notes into a new store at `path` in transactions of 20,000; returns its digest
    /// and the seconds the load took.
    private static func load(rows: Int, seed: UInt64, path: String,
                             namespaces: NamespaceSet) throws -> (StateDigest, Double) {
        let started = ContinuousClock.now
        let store = try KernelStore(path: path, namespaces: namespaces, entropy: .seeded(seed))
        defer { store.close() }
        try store.configureDevice(try device(0, seed: seed))
        var random = SeededGenerator(seed: seed)
        let stamp = Date(timeIntervalSince1970: 1_790_000_000)
        var written = 0
        while written < rows {
            let count = min(20_000, rows - written)
            let notes = (written..<written + count).map { index in
                Note(id: random.bytes(16), title: "Note \(index)",
                     body: (0..<20).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " "),
                     tags: [words[Int(random.next() % UInt64(words.count))]], createdAt: stamp, updatedAt: stamp)
            }
            try store.write(NotebookNamespace.self) { tx throws(SyncKernelError) in for note in notes { try tx.save(note) } }
            written += count
        }
        try store.checkpoint()
        return (store.stateDigest(), AbsorbBenchResult.seconds(started.duration(to: .now)))
    }

    /// One transfer through `blobStore`: the source answers a request, then a fresh store absorbs
    /// the offer; both sides measured, the blob and the absorbed store removed afterwards.
    private static func transfer(store kind: String, blobStore: any BlobStore, rows: Int, sourcePath: String, namespaces: NamespaceSet,
                                 digest: StateDigest, directory: String, chunkBytes: Int) async throws -> AbsorbBenchResult {
        let account = SHA256.hash(domain: Array("synckernel.bench-absorb.account".utf8))
        let request = try SyncRequest(requestID: SyncRequestID.random(), replyKey: Array(repeating: 1, count: 32),
                                      timestamp: Int64(Date().timeIntervalSince1970 * 1_000))
        var sender = SnapshotSender(blobStore: blobStore)
        sender.chunkBytes = chunkBytes
        let source = try KernelStore(path: sourcePath, namespaces: namespaces)
        ProcessMemory.resetPeak()
        let senderCPU = ProcessMemory.cpuSeconds
        let answer = await sender.answer(request, store: source, account: account)
        let senderPeak = ProcessMemory.peakMebibytes
        let senderSeconds = ProcessMemory.cpuSeconds - senderCPU
        source.close()
        guard case .offer(let offer) = answer.message else {
            throw answer.error ?? SnapshotTransferError(.blobStoreFailed, "no offer")
        }
        let targetPath = directory + "/absorbed-\(kind).sqlite"
        let target = try KernelStore(path: targetPath, namespaces: namespaces)
        try target.configureDevice(try device(1, seed: 0))
        let receiver = SnapshotReceiver(blobStore: blobStore, spoolDirectory: directory)
        ProcessMemory.resetPeak()
        let receiverCPU = ProcessMemory.cpuSeconds
        let absorbed = await receiver.absorb(offer, into: target, account: account)
        let receiverPeak = ProcessMemory.peakMebibytes
        let receiverSeconds = ProcessMemory.cpuSeconds - receiverCPU
        let matches = absorbed.ack.ok && target.stateDigest() == digest
        target.close()
        for suffix in ["", "-wal", "-shm", ".lease"] { try? FileManager.default.removeItem(atPath: targetPath + suffix) }
        try? await blobStore.delete(offer.blobID)
        if let error = absorbed.error { progress("\(kind): absorb failed: \(error)") }
        return AbsorbBenchResult(store: kind, rows: rows, algorithm: offer.algorithm.description, sealedBytes: offer.size,
                                 send: answer.report, absorb: absorbed.report, senderPeakMebibytes: senderPeak,
                                 receiverPeakMebibytes: receiverPeak, senderCPUSeconds: senderSeconds, receiverCPUSeconds: receiverSeconds,
                                 digestMatches: matches)
    }

    /// The id of bench device `index`.
    private static func device(_ index: Int, seed: UInt64) throws -> DeviceID {
        try DeviceKeyPair(seed: SHA256.hash(domain: Array("synckernel.bench-absorb.device".utf8), Array("\(seed)/\(index)".utf8))).deviceID
    }

    private static func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
