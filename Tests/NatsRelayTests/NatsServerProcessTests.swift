import NatsRelay
import TestServerSupport
import TestServers
import XCTest

/// The test servers themselves: they start on a free port, answer, restart on the same port,
/// and leave no process behind when stopped.
final class NatsServerProcessTests: XCTestCase {
    func testAServerStartsOnAFreeLoopbackPortAndStopLeavesNoProcess() async throws {
        let server = try await startNatsServer()
        let pid = try XCTUnwrap(server.pid)
        XCTAssertTrue(TestServerProcess.isAlive(pid))
        XCTAssertGreaterThan(server.port, 0)
        let connection = try NatsRelayConnection(options: NatsRelayOptions(servers: [server.url]), inbox: "probe")
        XCTAssertEqual(connection.status, .connected)
        connection.close()
        await server.stop()
        XCTAssertFalse(TestServerProcess.isAlive(pid), "the server process is gone after stop()")
        XCTAssertNil(server.pid)
    }

    func testRestartServesTheSamePortAgain() async throws {
        let server = try await startNatsServer()
        let port = server.port
        let first = try XCTUnwrap(server.pid)
        try await server.restart()
        let second = try XCTUnwrap(server.pid)
        XCTAssertNotEqual(first, second)
        XCTAssertFalse(TestServerProcess.isAlive(first))
        XCTAssertEqual(server.port, port)
        let connection = try NatsRelayConnection(options: NatsRelayOptions(servers: [server.url]), inbox: "probe")
        XCTAssertEqual(connection.status, .connected)
        connection.close()
    }

    func testTheWatchdogKillsAServerWhoseTestProcessIsGone() async throws {
        let executable = try ProgramLocator.locate("nats-server", override: "NATS_SERVER")
        let process = try await TestServerProcess.launch(executable, ["-a", "127.0.0.1", "-p", "-1"])
        let ready = await process.log.firstLine(matching: { $0.contains("Server is ready") }, timeout: .seconds(15))
        XCTAssertNotNil(ready, process.log.tail())
        process.abandon()
        let exited = await process.waitForExit(timeout: .seconds(10))
        XCTAssertTrue(exited, "the watchdog ended when its lifeline closed")
        XCTAssertFalse(TestServerProcess.isAlive(process.pid), "and took the server with it")
    }

    func testAClusterRoutesEveryNodeToEveryOther() async throws {
        let cluster = try await startNatsCluster(nodes: 3)
        XCTAssertEqual(cluster.nodes.count, 3)
        XCTAssertEqual(Set(cluster.nodes.map(\.port)).count, 3)
        XCTAssertEqual(Set(cluster.nodes.compactMap(\.clusterPort)).count, 3)
        for node in cluster.nodes {
            let lines = node.log?.lines ?? []
            for other in cluster.nodes where other !== node {
                XCTAssertTrue(lines.contains { $0.contains("Registering remote route \"\(other.serverID)\"") },
                              "\(node.name) routes to \(other.name)")
            }
        }
        let pids = cluster.nodes.compactMap(\.pid)
        await cluster.stop()
        XCTAssertTrue(pids.allSatisfy { !TestServerProcess.isAlive($0) })
    }
}
