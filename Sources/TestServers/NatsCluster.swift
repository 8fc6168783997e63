import Foundation

/// A NATS cluster of loopback nodes a test started, fully routed before it is handed out.
///
/// Invariants: every node routes to every other (checked in the nodes' logs) before `start`
/// returns; `stop()` stops every node; the cluster's name is random, so no other test's nodes
/// join it.
package struct NatsCluster: Sendable {
    /// The nodes, in start order.
    package let nodes: [NatsServerProcess]

    /// Starts `count` nodes: the first alone, each next one routed to the first (the cluster
    /// gossips the others), then waits until every node registered a route to every other.
    package static func start(nodes count: Int, timeout: Duration = .seconds(30)) async throws(TestServerError) -> NatsCluster {
        let name = "synckernel-\(UUID().uuidString.prefix(8))"
        var nodes: [NatsServerProcess] = []
        do throws(TestServerError) {
            for index in 0..<count {
                let routes = nodes.first?.routeURL.map { [$0] } ?? []
                nodes.append(try await NatsServerProcess.start(name: "\(name)-n\(index + 1)",
                                                               cluster: .init(name: name, routes: routes)))
            }
            for node in nodes {
                let others = nodes.filter { $0 !== node }.map(\.serverID)
                guard await node.waitForRoutes(to: others, timeout: timeout) else {
                    throw TestServerError.notReady(program: "nats-server cluster", log: node.log?.tail() ?? "")
                }
            }
        } catch {
            for node in nodes { await node.stop() }
            throw error
        }
        return NatsCluster(nodes: nodes)
    }

    /// Stops every node.
    package func stop() async {
        for node in nodes { await node.stop() }
    }
}
