import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import TestServers

/// The `nats-server` of `synckernel bench-e2e`: started on free loopback ports (clients and HTTP
/// monitoring, `-p -1 -m -1` on 127.0.0.1, read back from its log), read through `/varz`.
///
/// Invariants: the server runs under the test-server watchdog and `stop()` leaves no process
/// behind; `counters()` are the server's own totals (`in_msgs`, `in_bytes`: messages and payload
/// bytes clients published into it, chunk headers included; `out_msgs`, `out_bytes`: delivered),
/// so the difference of two readings is an exact count at the server.
final class E2ERelay: Sendable {
    /// The server's totals at one moment.
    struct Counters {
        /// Messages clients published.
        let inMessages: Int
        /// Payload bytes clients published.
        let inBytes: Int
        /// Messages delivered to subscribers.
        let outMessages: Int
        /// Payload bytes delivered to subscribers.
        let outBytes: Int
    }

    /// The client URL.
    let url: String
    /// The HTTP monitoring port.
    let monitorPort: Int
    /// The server's process under its watchdog.
    private let process: TestServerProcess

    /// Wraps a started server.
    private init(url: String, monitorPort: Int, process: TestServerProcess) {
        self.url = url
        self.monitorPort = monitorPort
        self.process = process
    }

    /// Starts a server (from the PATH or `NATS_SERVER`) and waits until it is ready.
    static func start() async throws -> E2ERelay {
        let executable = try ProgramLocator.locate("nats-server", override: "NATS_SERVER")
        let process = try await TestServerProcess.launch(executable, ["-a", "127.0.0.1", "-p", "-1", "-m", "-1"])
        let timeout = Duration.seconds(NatsServerProcess.startTimeoutSeconds)
        let client = await process.log.firstLine(matching: { $0.contains("Listening for client connections on") }, timeout: timeout)
        let monitor = await process.log.firstLine(matching: { $0.contains("Starting http monitor on") }, timeout: timeout)
        let ready = await process.log.firstLine(matching: { $0.contains("Server is ready") }, timeout: timeout)
        guard let client, let clientPort = lastPort(client), let monitor, let monitorPort = lastPort(monitor), ready != nil else {
            await process.stop()
            throw E2EError("nats-server did not start: \(process.log.tail(10))")
        }
        return E2ERelay(url: "nats://127.0.0.1:\(clientPort)", monitorPort: monitorPort, process: process)
    }

    /// The counters once nothing was published for `quiet` (polled every 200 ms), or as they are
    /// at `bound`: what a window opens with when a device may still be sending.
    func quietCounters(for quiet: Duration, within bound: Duration) async throws -> Counters {
        let deadline = ContinuousClock.now + bound
        var last = try await counters()
        var stableSince = ContinuousClock.now
        while ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            let now = try await counters()
            if now.inMessages != last.inMessages || now.inBytes != last.inBytes {
                last = now
                stableSince = .now
            } else if stableSince.duration(to: .now) >= quiet {
                return now
            }
        }
        return last
    }

    /// Reads the totals from `/varz`.
    func counters() async throws -> Counters {
        guard let address = URL(string: "http://127.0.0.1:\(monitorPort)/varz") else { throw E2EError("no monitoring URL") }
        let (data, _) = try await URLSession.shared.data(from: address)
        guard let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
              let inMessages = object["in_msgs"] as? Int, let inBytes = object["in_bytes"] as? Int,
              let outMessages = object["out_msgs"] as? Int, let outBytes = object["out_bytes"] as? Int else {
            throw E2EError("nats-server's /varz has no in_msgs/in_bytes/out_msgs/out_bytes")
        }
        return Counters(inMessages: inMessages, inBytes: inBytes, outMessages: outMessages, outBytes: outBytes)
    }

    /// Stops the server and waits until it exited.
    func stop() async {
        await process.stop()
    }

    /// A URL nothing listens on: a free loopback port, released at once (a device started on it
    /// runs offline, its relay client retrying in the background).
    static func deadURL() throws -> String {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw E2EError("socket: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw E2EError("bind: errno \(errno)") }
        return "nats://127.0.0.1:\(UInt16(bigEndian: address.sin_port))"
    }

    /// The number after the last colon of a log line.
    private static func lastPort(_ line: String) -> Int? {
        line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }
}
