import TestServers
import XCTest

/// The servers a test starts, stopped when it ends.
///
/// Invariant: every server started here has its stop registered as a teardown block before it is
/// returned, so it is stopped whether the test passed, failed or threw.
extension XCTestCase {
    /// Starts a `nats-server` for this test on a free loopback port (with JetStream when
    /// `jetStream` is set), stopped and its folder removed when the test ends (pass or fail). A
    /// missing `nats-server` fails the test with what to do: these tests never skip.
    package func startNatsServer(config: String? = nil, jetStream: Bool = false, file: StaticString = #filePath,
                                 line: UInt = #line) async throws -> NatsServerProcess {
        do {
            let server = try await NatsServerProcess.start(config: config, jetStream: jetStream)
            addTeardownBlock { await server.stopAndRemoveFiles() }
            return server
        } catch {
            XCTFail("\(error)", file: file, line: line)
            throw error
        }
    }

    /// Starts a NATS cluster of `count` loopback nodes for this test, fully routed, stopped when
    /// the test ends.
    package func startNatsCluster(nodes count: Int, file: StaticString = #filePath, line: UInt = #line) async throws -> NatsCluster {
        do {
            let cluster = try await NatsCluster.start(nodes: count)
            addTeardownBlock { await cluster.stop() }
            return cluster
        } catch {
            XCTFail("\(error)", file: file, line: line)
            throw error
        }
    }
}
