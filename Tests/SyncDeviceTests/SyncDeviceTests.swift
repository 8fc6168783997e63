import Foundation
import NatsRelay
import NotebookNamespace
import SyncDevice
import SyncEnvelope
import SyncKernel
import SyncKernelSimulator
import TestServerSupport
import TestServers
import XCTest

/// `SyncDevice` in one process against a real `nats-server`: convergence, the status it shows
/// live and from its files, the lifecycle in any order, writes racing a stop, refusals, events.
final class SyncDeviceTests: XCTestCase {
    private let deadline = Duration.seconds(30)

    /// Devices for every configuration, each stopped when the test ends, with their event logs.
    private func devices(_ world: DeviceWorld, servers: (Int) -> [String],
                         adjust: (Int, inout SyncDeviceConfiguration) -> Void = { _, _ in })
        throws -> [(device: SyncDevice, log: Recorder<SyncDeviceEvent>)] {
        try world.names.indices.map { index in
            var configuration = try world.configuration(index, servers: servers(index))
            adjust(index, &configuration)
            let device = SyncDevice(configuration)
            addTeardownBlock { await device.stop() }
            return (device, Recorder(device.events))
        }
    }

    /// Whether every device shows the same namespaces and every sibling in sync.
    private static func converged(_ devices: [SyncDevice]) async -> Bool {
        var statuses: [DeviceStatus] = []
        for device in devices {
            guard let status = try? await device.currentStatus() else { return false }
            statuses.append(status)
        }
        return Set(statuses.map(\.namespaces)).count == 1
            && statuses.allSatisfy { $0.siblings.count == devices.count - 1 && $0.siblings.allSatisfy(\.inSync) }
    }

    /// Waits until the devices converged, checking after every status change of any of them.
    private func waitForConvergence(_ devices: [SyncDevice]) async -> Bool {
        let (changes, continuation) = AsyncStream.makeStream(of: Int.self)
        let watchers = devices.enumerated().map { index, device in
            let statuses = device.status
            return Task {
                for await _ in statuses { continuation.yield(index) }
            }
        }
        defer { watchers.forEach { $0.cancel() } }
        return await Recorder(changes).wait(timeout: deadline) { _ in await Self.converged(devices) }
    }

    private func write(_ indexes: Range<Int>, on device: SyncDevice) async throws {
        for index in indexes {
            let note = DeviceWorld.note(index)
            try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
        }
    }

    func testTwoDevicesConvergeThroughARealServerAndTheirFilesShowTheSameStatus() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let pair = try devices(world) { _ in [server.url] }
        for (device, _) in pair { try await device.start() }
        try await write(0..<10, on: pair[0].device)
        try await write(100..<110, on: pair[1].device)
        let done = await waitForConvergence(pair.map(\.device))
        XCTAssertTrue(done, "no convergence; events \(pair[0].log.items)")

        let live = try await pair[0].device.currentStatus()
        XCTAssertEqual(live.namespaces.map(\.name), ["notebook"])
        XCTAssertEqual(live.namespaces.first?.items, 20)
        XCTAssertEqual(live.live?.relay, .connected)
        XCTAssertEqual(live.live?.dropped, [:])
        let other = try await pair[1].device.currentStatus()
        XCTAssertEqual(other.live?.dropped, [:], "no envelope dropped on either side, none while the handshake was under way")
        let whileRunning = try DeviceStatus(storeAt: world.store(1))
        XCTAssertEqual(whileRunning.namespaces, live.namespaces, "read from the file while the device runs")
        XCTAssertNil(whileRunning.live)

        let first = pair[0].log.items
        XCTAssertEqual(first.first, .started(device: try world.account.certificate(name: world.names[0]).device), "started comes first")
        XCTAssertTrue(first.contains(.relayConnected))
        let roundsAnywhere = (pair[0].log.items + pair[1].log.items).filter {
            if case .roundStarted = $0 { return true } else { return false }
        }
        XCTAssertFalse(roundsAnywhere.isEmpty, "the writes were pulled in rounds")
        for (index, (_, log)) in pair.enumerated() {
            let announced = log.items.compactMap { event -> [String]? in
                guard case .siblingCapabilities(_, let capabilities) = event else { return nil }
                return capabilities
            }
            XCTAssertEqual(announced.count, 1, "device \(index) learned once what its sibling reads")
            XCTAssertTrue(announced.first?.contains(NatsRelayConnection.shortFormCapability) == true,
                          "the sibling's host announced the relay's short form: \(announced)")
        }

        for (device, _) in pair { await device.stop() }
        XCTAssertEqual(pair[0].log.items.last, .stopped, "stopped comes last")
        let fromFiles = try (0..<2).map { try DeviceStatus(storeAt: world.store($0)) }
        XCTAssertEqual(fromFiles[0].namespaces, fromFiles[1].namespaces)
        XCTAssertEqual(fromFiles[0].namespaces, live.namespaces)
        XCTAssertEqual(fromFiles[0].json().data(using: .utf8).flatMap { Self.namespacesObject($0) },
                       fromFiles[1].json().data(using: .utf8).flatMap { Self.namespacesObject($0) })
        for (index, status) in fromFiles.enumerated() {
            XCTAssertEqual(status.siblings.map(\.device), [try world.account.certificate(name: world.names[1 - index]).device])
            XCTAssertEqual(status.siblings.map(\.inSync), [true], "recorded beside the store at stop")
            XCTAssertNotNil(status.siblings.first?.lastSeen)
        }
        XCTAssertTrue(fromFiles.contains { $0.siblings.first?.lastRound != nil }, "a finished round is recorded")
        let expected = Set(Array(0..<10) + Array(100..<110))
        XCTAssertEqual(try DeviceWorld.notes(at: world.store(0)), expected)
        XCTAssertEqual(try DeviceWorld.notes(at: world.store(1)), expected)
    }

    /// The `namespaces` object of a status JSON, as its exact bytes.
    private static func namespacesObject(_ json: Data) -> Data? {
        guard let object = try? JSONSerialization.jsonObject(with: json) as? [String: Any], let namespaces = object["namespaces"] else {
            return nil
        }
        return try? JSONSerialization.data(withJSONObject: namespaces, options: [.sortedKeys])
    }

    func testStartAndStopAreIdempotentAndSafeInAnyOrder() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let device = try devices(world) { _ in [server.url] }[0]
        await device.device.stop()
        try await device.device.start()
        try await device.device.start()
        var generator = SeededGenerator(seed: 12)
        let plan = (0..<12).map { _ in generator.next() % 2 == 0 }
        await withTaskGroup(of: Void.self) { group in
            for starts in plan {
                group.addTask {
                    if starts { try? await device.device.start() } else { await device.device.stop() }
                }
            }
        }
        await device.device.stop()
        await device.device.stop()
        let running = await device.device.isRunning
        XCTAssertFalse(running, "plan \(plan)")
        try await device.device.start()
        try await write(0..<1, on: device.device)
        await device.device.stop()
        XCTAssertEqual(try DeviceWorld.notes(at: world.store(0)), [0], "a start after a stop runs on the same store")

        let started = SyncDeviceEvent.started(device: try world.account.certificate(name: world.names[0]).device)
        let lifecycle = device.log.items.filter { $0 == .stopped || $0 == started }
        XCTAssertFalse(lifecycle.isEmpty)
        for (index, event) in lifecycle.enumerated() {
            XCTAssertEqual(event == .stopped, index % 2 == 1, "started and stopped alternate: \(lifecycle)")
        }
    }

    func testRejectAWriteWhileTheDeviceIsNotRunning() async throws {
        let world = try DeviceWorld(devices: 1)
        let device = SyncDevice(try world.configuration(0, servers: ["nats://127.0.0.1:1"]))
        addTeardownBlock { await device.stop() }
        let note = DeviceWorld.note(1)
        do {
            try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
            XCTFail("a write before the start")
        } catch {
            XCTAssertEqual((error as? SyncDeviceError)?.code, .deviceNotRunning)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.store(0)), "nothing opened before the start")
        do throws(SyncKernelError) {
            _ = try await device.currentStatus()
            XCTFail("no store yet")
        } catch {
            XCTAssertEqual(error.code, .notAStore)
        }
        try await device.start()
        await device.stop()
        do {
            try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
            XCTFail("a write after the stop")
        } catch {
            XCTAssertEqual((error as? SyncDeviceError)?.code, .deviceNotRunning)
        }
        XCTAssertEqual(try DeviceWorld.notes(at: world.store(0)), [], "nothing written")
        let stopped = try await device.currentStatus()
        XCTAssertNil(stopped.live, "a stopped device shows the status of its files")
    }

    func testEveryAcknowledgedWriteSurvivesAStopThatRacesIt() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let device = try devices(world) { _ in [server.url] }[0].device
        try await device.start()
        let acknowledged = await withTaskGroup(of: Int?.self) { group in
            for index in 0..<60 {
                group.addTask {
                    if index == 30 { await device.stop() }
                    let note = DeviceWorld.note(index)
                    do {
                        try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in try tx.save(note) }
                        return index
                    } catch {
                        XCTAssertEqual((error as? SyncDeviceError)?.code, .deviceNotRunning, "only refused, never lost")
                        return nil
                    }
                }
            }
            var done: Set<Int> = []
            for await index in group { if let index { done.insert(index) } }
            return done
        }
        await device.stop()
        XCTAssertEqual(try DeviceWorld.notes(at: world.store(0)), acknowledged, "every acknowledged write, and only those")
    }

    func testRejectAStartWithoutTheDevicesKeysOrWithRelayOptionsTheClientRefuses() async throws {
        let world = try DeviceWorld(devices: 1)
        var stranger = try world.configuration(0, servers: ["nats://127.0.0.1:1"])
        stranger.name = "nobody"
        let device = SyncDevice(stranger)
        do {
            try await device.start()
            XCTFail("no keys for this name")
        } catch {
            XCTAssertEqual((error as? SyncKernelError)?.code, .keyFileUnavailable)
        }
        let running = await device.isRunning
        XCTAssertFalse(running)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.store(0)), "keys are loaded before the store is opened")

        var refused = try world.configuration(0, servers: ["nats://127.0.0.1:1"])
        var zeroTimeout = DeviceWorld.relay(["nats://127.0.0.1:1"])
        zeroTimeout.connectTimeoutMillis = 0
        refused.relay = zeroTimeout
        let misconfigured = SyncDevice(refused)
        do {
            try await misconfigured.start()
            XCTFail("options out of range")
        } catch {
            XCTAssertEqual((error as? RelayError)?.code, .invalidRelayConfiguration)
        }
        let stillStopped = await misconfigured.isRunning
        XCTAssertFalse(stillStopped)
        XCTAssertFalse(FileManager.default.fileExists(atPath: world.store(0)), "the options are checked before the store is opened")
    }

    func testDropsRelayChangesAndAServerRestartAreReportedAndTheDevicesStillConverge() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let pair = try devices(world, servers: { _ in [server.url] }) { index, configuration in
            // Device 0 reports each drop; device 1 only counts and summarises them.
            configuration.reportsEachDrop = index == 0
            configuration.dropSummaryInterval = .milliseconds(200)
        }
        for (device, _) in pair { try await device.start() }
        try await write(0..<1, on: pair[0].device)
        let first = await waitForConvergence(pair.map(\.device))
        XCTAssertTrue(first)

        let rogue = try NatsRelayConnection(options: NatsRelayOptions(servers: [server.url]), inbox: "sk.test.rogue")
        addTeardownBlock { rogue.close() }
        let inbox = try world.account.envelopeKeys(name: world.names[0]).inbox.value
        var generator = SeededGenerator(seed: 5)
        try rogue.publish([1, 0] + (0..<598).map { _ in UInt8(truncatingIfNeeded: generator.next()) }, to: inbox)
        try rogue.publish([1, 0, 3], to: inbox)
        let dropped = await pair[0].log.wait(timeout: deadline) { events in
            events.contains(.envelopeDropped(reason: .unopenable, bytes: 600)) && events.contains(.envelopeDropped(reason: .truncated, bytes: 3))
        }
        XCTAssertTrue(dropped, "\(pair[0].log.items)")
        let counted = try await pair[0].device.currentStatus()
        XCTAssertEqual(counted.live?.dropped, [.unopenable: 1, .truncated: 1])
        XCTAssertEqual(counted.namespaces.first?.items, 1, "nothing written")
        let summarised = await pair[0].log.wait(timeout: deadline) { events in
            events.contains { event in
                guard case .dropsSummarised(let envelopes, _, _) = event else { return false }
                return envelopes == [.unopenable: 1, .truncated: 1]
            }
        }
        XCTAssertTrue(summarised, "the period's drops are summarised too: \(pair[0].log.items)")

        let quietInbox = try world.account.envelopeKeys(name: world.names[1]).inbox.value
        for _ in 0..<3 { try rogue.publish([1, 0, 3], to: quietInbox) }
        let quietSummary = await pair[1].log.wait(timeout: deadline) { events in
            events.contains { event in
                guard case .dropsSummarised(let envelopes, _, _) = event else { return false }
                return envelopes == [.truncated: 3]
            }
        }
        XCTAssertTrue(quietSummary, "a device that does not report each drop summarises them: \(pair[1].log.items)")
        XCTAssertFalse(pair[1].log.items.contains { if case .envelopeDropped = $0 { true } else { false } },
                       "and reports no drop on its own")
        let quietCounted = try await pair[1].device.currentStatus()
        XCTAssertEqual(quietCounted.live?.dropped, [.truncated: 3])

        try await server.restart()
        let back = await pair[1].log.wait(timeout: deadline) { events in
            events.contains(.relayDisconnected) && events.contains(.relayReconnected)
        }
        XCTAssertTrue(back)
        try await write(1..<3, on: pair[1].device)
        let again = await waitForConvergence(pair.map(\.device))
        XCTAssertTrue(again)
        for (device, _) in pair { await device.stop() }
        XCTAssertEqual(try DeviceWorld.notes(at: world.store(0)), [0, 1, 2])
    }

    func testTheStatusStreamShowsEachChange() async throws {
        let server = try await startNatsServer()
        let world = try DeviceWorld(devices: 2)
        let device = try devices(world) { _ in [server.url] }[0].device
        let statuses = Recorder(device.status)
        try await device.start()
        try await write(0..<3, on: device)
        let shown = await statuses.wait(timeout: deadline) { seen in seen.contains { $0.namespaces.first?.items == 3 } }
        XCTAssertTrue(shown, "\(statuses.items.map { $0.namespaces.first?.items ?? -1 })")
        let later = Recorder(device.status)
        let first = await later.wait(timeout: deadline) { seen in seen.first?.namespaces.first?.items == 3 }
        XCTAssertTrue(first, "a new subscription first gets the status as it is")
        await device.stop()
        let last = await statuses.wait(timeout: deadline) { seen in seen.last?.live == nil }
        XCTAssertTrue(last, "the last status after a stop is the files'")
    }

    func testRejectASiblingsFileThatIsNotTheFormatAndShowNoSiblings() throws {
        let world = try DeviceWorld(devices: 1)
        let path = world.store(0)
        let store = try KernelStore(path: path, namespaces: NamespaceSet([NotebookNamespace.self]))
        store.close()
        let id = String(repeating: "ab", count: 32)
        let valid = "synckernel-siblings 1\n\(id) 1700000000000 - 1\n"
        try Data(valid.utf8).write(to: URL(fileURLWithPath: path + "-siblings"))
        let read = try DeviceStatus(storeAt: path).siblings
        XCTAssertEqual(read.map(\.device.hex), [id])
        XCTAssertEqual(read.map(\.lastRound), [1_700_000_000_000])
        XCTAssertEqual(read.map(\.lastSeen), [nil])
        XCTAssertEqual(read.map(\.inSync), [true])
        let hostile = [
            "synckernel-siblings 2\n\(id) - - 1\n",
            "synckernel-siblings 1\n\(id) - - 1",
            "synckernel-siblings 1\n\(id) - - 2\n",
            "synckernel-siblings 1\n\(id) -1 - 1\n",
            "synckernel-siblings 1\n\(id) 99999999999999999999 - 1\n",
            "synckernel-siblings 1\n\(id.dropLast(2)) - - 1\n",
            "synckernel-siblings 1\n\(id.dropLast(2))zz - - 1\n",
            "synckernel-siblings 1\n\(id) - - 1 extra\n",
            "synckernel-siblings 1\n\(id)  - 1\n",
            "synckernel-siblings 1\n" + String(repeating: "\(id) - - 1\n", count: 20_000),
            String(repeating: "x", count: 2 << 20),
        ]
        for text in hostile {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path + "-siblings"))
            XCTAssertEqual(try DeviceStatus(storeAt: path).siblings, [], "\(text.prefix(80))")
        }
    }
}
