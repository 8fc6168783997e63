import Foundation
import TestServerSupport
import TestServers
import XCTest

/// Three `synckernel device` processes syncing through a real `nats-server` (and a three-node
/// cluster): writes on each, one device killed with SIGKILL in the middle of a round and
/// restarted on its store, the relay restarted: all three reach identical namespaces and every
/// write a `written` line acknowledged is in every store. Also the process lifecycle: SIGINT and
/// SIGTERM stop cleanly, the end of standard input does not, bad input is answered and survived.
final class DeviceProcessTests: XCTestCase {
    private let names = ["laptop", "phone", "tablet"]

    /// Starts the three devices, device `index` on `relays[index]`, each stopped when the test ends.
    private func launch(_ fleet: ProcessFleet, relays: [[String]]) async throws -> [DeviceProcess] {
        var devices: [DeviceProcess] = []
        for (index, name) in names.enumerated() {
            let device = try await DeviceProcess.launch(name: name, store: fleet.store(name), account: fleet.account, relay: relays[index])
            addTeardownBlock { await device.stop() }
            devices.append(device)
        }
        for device in devices {
            let connected = await device.waitForEvents("connected")
            XCTAssertTrue(connected, "\(device.name) connected")
        }
        return devices
    }

    /// The scenario both relays run: writes everywhere, the phone killed mid-round and
    /// restarted, `restartRelay` (after which the devices in `reconnecting` report `reconnected`),
    /// more writes, convergence, a clean quit, and every acknowledged write in every store.
    private func runScenario(relays: [[String]], reconnecting: [Int], restartRelay: () async throws -> Void) async throws {
        let fleet = try await ProcessFleet(devices: names)
        let devices = try await launch(fleet, relays: relays)
        let (laptop, phone, tablet) = (devices[0], devices[1], devices[2])
        var acknowledged: [[String: Any]] = []
        let first = [laptop.sendDemoWrite(300), phone.sendDemoWrite(200), tablet.sendDemoWrite(100)]
        for (device, index) in zip(devices, first) { acknowledged.append(try await device.written(index)) }

        // A larger write the phone pulls; the phone dies as soon as its round starts.
        let rounds = phone.events("round_started").count
        let large = laptop.sendDemoWrite(3_000)
        let started = await phone.waitForEvents("round_started", count: rounds + 1)
        XCTAssertTrue(started, "the phone started pulling the laptop's write")
        await phone.program.kill()
        XCTAssertEqual(phone.program.exitStatus, 128 + SIGKILL)
        let lastRoundEvent = phone.objects.last { ["round_started", "round_completed"].contains($0["event"] as? String ?? "") }
        XCTAssertEqual(lastRoundEvent?["event"] as? String, "round_started", "killed inside the round it started")
        acknowledged.append(try await laptop.written(large))
        acknowledged.append(try await tablet.demoWrite(150))
        try await phone.restart()

        try await restartRelay()
        for index in reconnecting {
            let back = await devices[index].waitForEvents("reconnected")
            XCTAssertTrue(back, "\(devices[index].name) reconnected after the relay restart")
        }
        acknowledged.append(try await phone.demoWrite(120))
        acknowledged.append(try await laptop.demoWrite(80))

        let converged = try await ProcessFleet.waitForConvergence(devices)
        if !converged {
            var statuses: [String] = []
            for device in devices { statuses.append("\(try await device.status())") }
            XCTFail("no convergence; statuses: \(statuses)")
        }
        for device in devices {
            let status = await device.quit()
            XCTAssertEqual(status, 0, "\(device.name) quit cleanly; its log ends with:\n\(device.program.errors.tail())")
        }
        for name in names {
            try ProcessFleet.assertHoldsEveryAcknowledgedWrite(fleet.store(name), acknowledged)
            let healthy = try await ProcessFleet.isHealthy(fleet.store(name))
            XCTAssertTrue(healthy, "\(name)'s store is healthy")
        }
        let printed = try await ProcessFleet.statusesFromFiles(names.map(fleet.store))
        XCTAssertEqual(Set(printed).count, 1, "`synckernel status` prints the same namespaces object for every store:\n\(printed)")
    }

    func testThreeDeviceProcessesOverOneServerSurviveAKillAndAServerRestart() async throws {
        let server = try await startNatsServer()
        try await runScenario(relays: Array(repeating: [server.url], count: 3), reconnecting: [0, 1, 2]) {
            try await server.restart()
        }
    }

    func testThreeDeviceProcessesOnThreeNodesOfAClusterSurviveAKillAndANodeRestart() async throws {
        let cluster = try await startNatsCluster(nodes: 3)
        try await runScenario(relays: cluster.nodes.map { [$0.url] }, reconnecting: [1]) {
            try await cluster.nodes[1].restart()
        }
    }

    func testSignalsStopCleanlyAndTheEndOfInputDoesNot() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: Array(names.prefix(2)))
        var devices: [DeviceProcess] = []
        for name in names.prefix(2) {
            let device = try await DeviceProcess.launch(name: name, store: fleet.store(name), account: fleet.account, relay: [server.url])
            addTeardownBlock { await device.stop() }
            devices.append(device)
        }
        let (laptop, phone) = (devices[0], devices[1])

        laptop.program.send("frobnicate\n")
        laptop.program.send("demo-write 0\n")
        laptop.program.send("demo-write 100001\n")
        laptop.program.send("status now\n")
        laptop.program.send(String(repeating: "x", count: 10_000) + "\n")
        let answered = await laptop.waitForEvents("error", count: 5)
        XCTAssertTrue(answered, "each bad line gets one JSON error line: \(laptop.program.output.tail())")
        XCTAssertFalse(laptop.program.hasExited, "bad input is survived")

        let before = laptop.events("applied").count
        laptop.program.closeInput()
        _ = try await phone.demoWrite(40)
        let pulled = await laptop.waitForEvents("applied", count: before + 1)
        XCTAssertTrue(pulled, "after the end of its input the laptop still runs and pulls the phone's write")
        XCTAssertFalse(laptop.program.hasExited)

        laptop.program.signal(SIGINT)
        phone.program.signal(SIGTERM)
        let (laptopStatus, phoneStatus) = (await laptop.program.waitForExit(timeout: .seconds(30)),
                                           await phone.program.waitForExit(timeout: .seconds(30)))
        XCTAssertEqual(laptopStatus, 0, "SIGINT: a clean exit; log:\n\(laptop.program.errors.tail())")
        XCTAssertEqual(phoneStatus, 0, "SIGTERM: a clean exit; log:\n\(phone.program.errors.tail())")
        XCTAssertEqual(laptop.events("stopped").count, 1)
        for name in names.prefix(2) {
            let healthy = try await ProcessFleet.isHealthy(fleet.store(name))
            XCTAssertTrue(healthy, "\(name)'s store is healthy after the signal")
        }
        let notes = try ProcessFleet.titles(at: fleet.store("laptop"))
        XCTAssertEqual(notes.count, 30, "the 30 notes the phone inserted (and 10 edits of them) reached the laptop")
    }

    func testRejectBadArgumentsWithTheUsageAndExit64() async throws {
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let store = fleet.store("laptop")
        let cases: [[String]] = [
            ["device"],
            ["device", "--account", fleet.account, "--name", "laptop", "--db", store],
            ["device", "--account", fleet.account, "--name", "laptop", "--db", store, "--relay", "http://127.0.0.1:4222"],
            ["device", "--account", fleet.account, "--name", "../laptop", "--db", store, "--relay", "nats://127.0.0.1:4222"],
            ["device", "--account", fleet.account, "--name", "laptop", "--db", store, "--relay", "nats://127.0.0.1:4222", "--events", "xml"],
            ["device", "--account", fleet.account, "--name", "laptop", "--db", store, "--relay", "nats://127.0.0.1:4222", "--namespaces", "nope"],
            ["device", "--account", fleet.account, "--name", "laptop", "--db", store, "--relay", "nats://127.0.0.1:4222", "--user", "u"],
            ["status"],
            ["status", "--db", store, "--extra"],
        ]
        for arguments in cases {
            let result = try await SynckernelProgram.run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.errors)")
            XCTAssertTrue(result.errors.contains("usage: synckernel \(arguments[0])"), "\(arguments)")
            XCTAssertEqual(result.output, "")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: store), "nothing was created")
        let stranger = try await SynckernelProgram.run(["device", "--account", fleet.account, "--name", "nobody", "--db", store,
                                                        "--relay", "nats://127.0.0.1:4222"])
        XCTAssertEqual(stranger.status, 1, "a device the account does not hold cannot start")
        XCTAssertTrue(stranger.errors.contains("SK309"), stranger.errors)
        let notAStore = try await SynckernelProgram.run(["status", "--db", fleet.account + "/account.key"])
        XCTAssertEqual(notAStore.status, 2)
        let missing = try await SynckernelProgram.run(["status", "--db", store])
        XCTAssertEqual(missing.status, 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store), "status never creates a store")
    }
}
