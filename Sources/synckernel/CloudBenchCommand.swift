import CloudAnchor
import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `synckernel cloud-bench`: counts the WebDAV requests of directory backups of a generated tree
/// (`make cloud-bench` runs it against an rclone server it starts and stops).
///
/// Invariant: the tree is the same for the same options (contents derive from the file index);
/// each run is a fresh storage and state store over the same state file, as a new process would
/// be; the counts are the requests the transport sent, by method, nothing estimated.
enum CloudBenchCommand {
    static let usage = """
        usage: synckernel cloud-bench --webdav URL [--files N] [--folders F] [--finite-depth]
          URL: http://[USER:PASSWORD@]HOST:PORT/PATH (credentials also from CLOUDANCHOR_WEBDAV_USER/PASSWORD)
          backs a tree of N files (default 10,000) in F folders (default 100) up three times (first,
          unchanged, one file changed) and prints the requests of each run by method; --finite-depth
          answers 403 to every Depth: infinity PROPFIND, as servers that refuse it do
        """

    /// Runs the benchmark; returns the exit code.
    static func run(_ arguments: [String]) async -> Int32 {
        var options: [String: String] = [:]
        var finiteDepth = false
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--finite-depth" {
                finiteDepth = true
            } else if ["--webdav", "--files", "--folders"].contains(argument), let value = rest.popFirst() {
                options[argument] = value
            } else {
                FileHandle.standardError.write(Data((usage + "\n").utf8))
                return 2
            }
        }
        guard var components = options["--webdav"].flatMap({ URLComponents(string: $0) }),
              let files = Int(options["--files"] ?? "10000"), let folders = Int(options["--folders"] ?? "100"),
              files > 0, folders > 0 else {
            FileHandle.standardError.write(Data((usage + "\n").utf8))
            return 2
        }
        let environment = ProcessInfo.processInfo.environment
        let user = components.user ?? environment["CLOUDANCHOR_WEBDAV_USER"]
        let password = components.password ?? environment["CLOUDANCHOR_WEBDAV_PASSWORD"] ?? ""
        components.user = nil
        components.password = nil
        guard let base = components.url?.appendingPathComponent("bench-\(UUID().uuidString)", isDirectory: true) else { return 2 }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("cloud-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        do {
            let source = work.appendingPathComponent("source")
            for index in 0..<files {
                let url = source.appendingPathComponent("folder\(index % folders)/file\(index).txt")
                if index < folders {
                    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                }
                try Data("file \(index) ".utf8 + Data(repeating: UInt8(index % 251), count: 64 + index % 128)).write(to: url)
            }
            let statePath = work.appendingPathComponent("state.sqlite").path
            print("cloud-bench: \(files) files in \(folders) folders, WebDAV at \(components.host ?? "")"
                  + (finiteDepth ? " (Depth: infinity refused)" : ""))
            for run in ["first backup", "unchanged", "one file changed"] {
                if run == "one file changed" { try Data("changed".utf8).write(to: source.appendingPathComponent("folder0/file0.txt")) }
                let counting = CountingTransport(refusesInfiniteDepth: finiteDepth)
                let storage = WebDAVStorage(baseURL: base, credentials: user.map { .init(user: $0, password: password) },
                                            transport: counting)
                let clock = ContinuousClock()
                let start = clock.now
                let outcome = try await DirectoryBackup(source: source, storage: storage, state: try StateStore(path: statePath)).run()
                let elapsed = clock.now - start
                guard case .completed(let summary) = outcome else {
                    print("cloud-bench: \(run): the backup did not complete: \(outcome)")
                    return 1
                }
                let byMethod = counting.counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
                print("\(run): \(counting.total) requests (\(byMethod)); \(summary.uploaded.count) uploaded; "
                      + "\(elapsed.formatted(.units(allowed: [.seconds, .milliseconds], width: .narrow)))")
            }
            return 0
        } catch {
            print("cloud-bench failed: \((error as? CloudError)?.description ?? (error as? FileProblem)?.description ?? "\(error)")")
            return 1
        }
    }
}

/// Counts requests by method on their way to the real transport; optionally answers every
/// `Depth: infinity` PROPFIND itself with a 403, as servers that refuse that depth do.
private final class CountingTransport: HTTPTransport {
    private let inner = URLSessionTransport()
    private let refusesInfiniteDepth: Bool
    private let tally = Mutex<[String: Int]>([:])

    init(refusesInfiniteDepth: Bool) {
        self.refusesInfiniteDepth = refusesInfiniteDepth
    }

    var counts: [String: Int] {
        tally.withLock { $0 }
    }

    var total: Int {
        counts.values.reduce(0, +)
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        tally.withLock { $0[request.method, default: 0] += 1 }
        if refusesInfiniteDepth, request.method == "PROPFIND", request.headers["Depth"] == "infinity" {
            return HTTPResponse(status: 403, body: Data("<d:error xmlns:d=\"DAV:\"><d:propfind-finite-depth/></d:error>".utf8))
        }
        return try await inner.send(request)
    }
}
