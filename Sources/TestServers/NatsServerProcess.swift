import Foundation
import Synchronization

/// A `nats-server` a test started on loopback, stopped when the test ends.
///
/// The first start lets the server pick a free port (`-p -1`, and the same for the cluster port)
/// and reads it back from the log, so no port is guessed; `restart()` starts it again on the
/// same ports. A node of a cluster (`cluster`) listens for routes and routes to the `routes` it
/// was given; the cluster gossips the rest. A server started with `jetStream` runs JetStream
/// (`-js`) with its store in the server's own temporary folder (`-sd`), removed with it.
///
/// Invariants: `url` answers while the server runs; `stop()` leaves no process behind (see
/// `TestServerProcess`); a server start that fails leaves nothing running either.
package final class NatsServerProcess: Sendable {
    /// A cluster node's settings.
    package struct Cluster: Sendable, Hashable {
        /// The cluster's name (random per test, so no two tests' clusters ever join).
        package var name: String
        /// Route URLs of nodes already running.
        package var routes: [String]

        /// A node of cluster `name` routing to `routes`.
        package init(name: String, routes: [String]) {
            self.name = name
            self.routes = routes
        }
    }

    /// Seconds a start may take before it counts as failed.
    package static let startTimeoutSeconds = 15
    /// This server's name (`--server_name`).
    package let name: String
    /// The client port.
    package let port: Int
    /// The route port of a cluster node.
    package let clusterPort: Int?
    /// The server's id (from its log), which other nodes' logs name.
    package let serverID: String
    /// The cluster settings, if a node.
    package let cluster: Cluster?
    /// Settings in the config file (`max_payload`, authorisation), if any.
    package let config: String?
    /// Whether the server runs JetStream.
    package let jetStream: Bool
    private let executable: String
    private let directory: URL
    private let process: Mutex<TestServerProcess?>

    /// The client URL.
    package var url: String { "nats://127.0.0.1:\(port)" }
    /// The route URL of a cluster node.
    package var routeURL: String? { clusterPort.map { "nats://127.0.0.1:\($0)" } }
    /// The running server's log, nil while stopped.
    package var log: LogWatch? { process.withLock { $0?.log } }
    /// The running server's process id, nil while stopped.
    package var pid: Int32? { process.withLock { $0?.pid } }

    /// Starts a server: on a free port unless `port` is given, as a cluster node with `cluster`,
    /// with `config` (nats-server configuration text, e.g. `max_payload: 65536`) if given, running
    /// JetStream when `jetStream` is set.
    package static func start(name: String = "n\(UInt32.random(in: 0 ... .max))", port: Int? = nil,
                              cluster: Cluster? = nil, config: String? = nil,
                              jetStream: Bool = false) async throws(TestServerError) -> NatsServerProcess {
        let executable = try ProgramLocator.locate("nats-server", override: "NATS_SERVER")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("synckernel-nats-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            if let config { try Data(config.utf8).write(to: directory.appendingPathComponent("server.conf")) }
        } catch {
            throw .launchFailed(program: "nats-server", reason: "cannot write its directory: \(error)")
        }
        let (process, ports) = try await launch(executable, name: name, port: port ?? -1, clusterPort: cluster.map { _ in -1 },
                                                cluster: cluster, directory: directory, hasConfig: config != nil,
                                                jetStream: jetStream)
        return NatsServerProcess(name: name, port: ports.client, clusterPort: ports.cluster, serverID: ports.id,
                                 cluster: cluster, config: config, jetStream: jetStream, executable: executable,
                                 directory: directory, process: process)
    }

    private init(name: String, port: Int, clusterPort: Int?, serverID: String, cluster: Cluster?, config: String?,
                 jetStream: Bool, executable: String, directory: URL, process: TestServerProcess) {
        self.name = name
        self.port = port
        self.clusterPort = clusterPort
        self.serverID = serverID
        self.cluster = cluster
        self.config = config
        self.jetStream = jetStream
        self.executable = executable
        self.directory = directory
        self.process = Mutex(process)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server (SIGTERM, then SIGKILL); idempotent.
    package func stop() async {
        let running = process.withLock { process in
            defer { process = nil }
            return process
        }
        await running?.stop()
    }

    /// Stops the server and removes its temporary folder (configuration, JetStream store) now,
    /// rather than when the object is released, which XCTest delays to the end of the run.
    package func stopAndRemoveFiles() async {
        await stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops the server if it runs and starts it again on the same ports, with a fresh state (a
    /// JetStream server keeps its store folder, so its streams survive).
    package func restart() async throws(TestServerError) {
        await stop()
        let (started, _) = try await Self.launch(executable, name: name, port: port, clusterPort: clusterPort,
                                                 cluster: cluster, directory: directory, hasConfig: config != nil,
                                                 jetStream: jetStream)
        process.withLock { $0 = started }
    }

    /// Waits until this node's log shows a route registered with every server in `ids`; whether
    /// it did within `timeout`.
    package func waitForRoutes(to ids: [String], timeout: Duration) async -> Bool {
        guard let log else { return false }
        for id in ids {
            let line = await log.firstLine(matching: { $0.contains("Registering remote route \"\(id)\"") }, timeout: timeout)
            if line == nil { return false }
        }
        return true
    }

    private struct Ports {
        let client: Int
        let cluster: Int?
        let id: String
    }

    /// Launches the server and reads its ports and id from its log; on failure stops it and
    /// throws `notReady` with the log's end.
    private static func launch(_ executable: String, name: String, port: Int, clusterPort: Int?, cluster: Cluster?,
                               directory: URL, hasConfig: Bool, jetStream: Bool) async throws(TestServerError) -> (TestServerProcess, Ports) {
        var arguments = ["-a", "127.0.0.1", "-p", String(port), "--server_name", name]
        if hasConfig { arguments = ["-c", directory.appendingPathComponent("server.conf").path] + arguments }
        if jetStream { arguments += ["-js", "-sd", directory.appendingPathComponent("jetstream").path] }
        if let cluster, let clusterPort {
            arguments += ["-D", "--cluster_name", cluster.name, "--cluster", "nats://127.0.0.1:\(clusterPort)"]
            if !cluster.routes.isEmpty { arguments += ["--routes", cluster.routes.joined(separator: ",")] }
        }
        let process = try await TestServerProcess.launch(executable, arguments)
        let timeout = Duration.seconds(startTimeoutSeconds)
        let client = await process.log.firstLine(matching: { $0.contains("Listening for client connections on") }, timeout: timeout)
        let id = await process.log.firstLine(matching: { $0.contains("  ID:") }, timeout: timeout)
        let ready = await process.log.firstLine(matching: { $0.contains("Server is ready") }, timeout: timeout)
        let route = cluster == nil ? nil
            : await process.log.firstLine(matching: { $0.contains("Listening for route connections on") }, timeout: timeout)
        guard let client, let clientPort = lastPort(in: client), let id, let serverID = id.split(separator: " ").last,
              ready != nil, cluster == nil || route.flatMap(lastPort) != nil else {
            let tail = process.log.tail()
            await process.stop()
            throw .notReady(program: "nats-server", log: tail)
        }
        return (process, Ports(client: clientPort, cluster: route.flatMap(lastPort), id: String(serverID)))
    }

    /// The number after the last colon of a log line ("... on 127.0.0.1:4222").
    private static func lastPort(in line: String) -> Int? {
        line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
}
