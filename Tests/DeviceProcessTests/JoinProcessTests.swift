import Foundation
import TestServerSupport
import TestServers
import XCTest

/// A third `synckernel device` joins an account over a real `nats-server` with JetStream: a
/// sibling's user approves on standard input, the new device absorbs a snapshot through the
/// JetStream blob store, and the digest loop backfills what was written meanwhile. Also the walls:
/// a rejected and an unanswered join write nothing on either side, and a sibling whose upload
/// fails answers `broken`, which the new device tells apart from a decline.
final class JoinProcessTests: XCTestCase {
    /// The two members, each given the same `extra` arguments, connected and converged after
    /// each filled `rows` rows across namespaces.
    private func members(_ fleet: ProcessFleet, relay: String, rows: Int, extra: [String]) async throws -> [DeviceProcess] {
        var devices: [DeviceProcess] = []
        for name in ["laptop", "phone"] {
            let device = try await DeviceProcess.launch(name: name, store: fleet.store(name), account: fleet.account, relay: [relay],
                                                        extra: extra)
            addTeardownBlock { await device.stop() }
            devices.append(device)
        }
        for device in devices {
            let connected = await device.waitForEvents("connected")
            XCTAssertTrue(connected, "\(device.name) connected")
        }
        if rows > 0 {
            for device in devices { device.program.send("demo-fill \(rows)\n") }
            for device in devices {
                let filled = await device.waitForEvents("filled", timeout: .seconds(120))
                XCTAssertTrue(filled, "\(device.name) filled \(rows) rows; its log ends with:\n\(device.program.errors.tail())")
            }
        }
        let converged = try await ProcessFleet.waitForConvergence(devices, timeout: .seconds(120))
        XCTAssertTrue(converged, "the two members converged before the join")
        return devices
    }

    /// A sign-in credential for the fleet's account, written beside it.
    private func credential(_ fleet: ProcessFleet, for name: String = "tablet") async throws -> String {
        let path = fleet.directory + "/\(name).signin"
        let made = try await SynckernelProgram.run(["account", "sign-in-cert", "--dir", fleet.account, "--out", path])
        XCTAssertEqual(made.status, 0, made.errors)
        return path
    }

    /// Starts device `name` asking to join into its own (missing) account directory.
    private func joiner(_ fleet: ProcessFleet, name: String = "tablet", relay: String, credential: String,
                        extra: [String]) async throws -> DeviceProcess {
        let tablet = try await DeviceProcess.launch(name: name, store: fleet.store(name), account: fleet.directory + "/\(name)-account",
                                                    relay: [relay], extra: ["--join", credential] + extra, waitForReady: false)
        addTeardownBlock {
            await tablet.stop()
            }
        return tablet
    }

    /// The id of the first `approval_requested` event `device` prints.
    private func approvalID(_ device: DeviceProcess) async -> String? {
        guard await device.waitForEvents("approval_requested", timeout: .seconds(30)) else { return nil }
        return device.events("approval_requested").first?["id"] as? String
    }

    /// The laptop fills `rows` rows across ten namespaces; the phone joins (the laptop's user
    /// approves) and absorbs them, so two devices hold them; then the tablet joins (the phone, a
    /// device that joined itself, approves), the laptop writes while the snapshot travels, the
    /// tablet absorbs it, and the digest loop brings all three to the same namespaces.
    /// At least `atLeast` rows must be held (settings has a small key space, so some generated
    /// settings rows land on one key).
    private func joinAbsorbAndConverge(rows: Int, atLeast: Int = 0, file: StaticString = #filePath, line: UInt = #line) async throws {
        let started = ContinuousClock.now
        let server = try await startNatsServer(jetStream: true)
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let blobs = ["--blobs", "jetstream"]
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url],
                                                    extra: blobs)
        addTeardownBlock { await laptop.stop() }
        laptop.program.send("demo-fill \(rows)\n")
        let filledRows = await laptop.waitForEvents("filled", timeout: .seconds(300))
        XCTAssertTrue(filledRows, "the laptop filled \(rows) rows", file: file, line: line)
        let filled = ContinuousClock.now

        let phone = try await joiner(fleet, name: "phone", relay: server.url, credential: try await credential(fleet, for: "phone"),
                                     extra: blobs)
        guard let phoneID = await approvalID(laptop) else { return XCTFail("no approval_requested on the laptop", file: file, line: line) }
        XCTAssertEqual(phoneID.count, 8, "the approval id is 8 hex digits", file: file, line: line)
        XCTAssertTrue(laptop.program.send("approve \(phoneID)\n"))
        let phoneAbsorbed = await phone.waitForEvents("snapshot_absorbed", timeout: .seconds(300))
        XCTAssertTrue(phoneAbsorbed, "the phone absorbed the laptop's snapshot; its log ends with:\n\(phone.program.errors.tail())",
                      file: file, line: line)
        let twoConverged = try await ProcessFleet.waitForConvergence([laptop, phone], timeout: .seconds(300))
        XCTAssertTrue(twoConverged, "two devices hold the rows", file: file, line: line)
        let held = try await laptop.status()
        let heldRows = (held["namespaces"] as? [String: [String: Any]] ?? [:]).values.reduce(0) { $0 + ($1["rows"] as? Int ?? 0) }
        XCTAssertGreaterThanOrEqual(heldRows, atLeast, "rows the two devices hold", file: file, line: line)
        let twoHold = ContinuousClock.now

        let laptopAsked = laptop.events("snapshot_requested").count
        let tablet = try await joiner(fleet, name: "tablet", relay: server.url, credential: try await credential(fleet, for: "tablet"),
                                      extra: blobs)
        guard let tabletID = await approvalID(phone) else { return XCTFail("no approval_requested on the phone", file: file, line: line) }
        XCTAssertTrue(phone.program.send("approve \(tabletID)\n"))
        let asked = await laptop.waitForEvents("snapshot_requested", count: laptopAsked + 1)
        XCTAssertTrue(asked, "the laptop, which did not approve, learned the tablet and was asked for a snapshot", file: file, line: line)
        // Written while the snapshot is exported, sealed, uploaded and absorbed: the digest loop
        // brings it over if the snapshot missed it.
        let during = try await laptop.demoWrite(400)
        let absorbed = await tablet.waitForEvents("snapshot_absorbed", timeout: .seconds(300))
        XCTAssertTrue(absorbed, "the tablet absorbed a snapshot; its log ends with:\n\(tablet.program.errors.tail())", file: file, line: line)
        let transferred = ContinuousClock.now
        let converged = try await ProcessFleet.waitForConvergence([laptop, phone, tablet], timeout: .seconds(300))
        XCTAssertTrue(converged, "the three devices converged", file: file, line: line)
        let done = ContinuousClock.now

        let report = tablet.events("snapshot_absorbed").first ?? [:]
        XCTAssertGreaterThanOrEqual(report["rows"] as? Int ?? 0, heldRows, "the snapshot held every row the members held",
                                    file: file, line: line)
        let phases = Set(tablet.events("snapshot_progress").compactMap { $0["phase"] as? String })
        XCTAssertTrue(phases.isSuperset(of: ["downloading", "importing"]), "progress events: \(phases)", file: file, line: line)
        XCTAssertEqual(tablet.events("join_granted").count, 1, file: file, line: line)
        XCTAssertFalse(laptop.events("sibling_learned").isEmpty, "the laptop learned the tablet from its first envelope", file: file, line: line)
        let statuses = [try await laptop.status(), try await phone.status(), try await tablet.status()]
        XCTAssertEqual(Set(statuses.map(ProcessFleet.namespaces)).count, 1, "the tablet's namespaces equal the others'",
                       file: file, line: line)
        for device in [laptop, phone, tablet] {
            let status = await device.quit()
            XCTAssertEqual(status, 0, "\(device.name) quit cleanly; its log ends with:\n\(device.program.errors.tail())", file: file, line: line)
        }
        let titles = Set(try ProcessFleet.titles(at: fleet.store("tablet")))
        let batch = during["batch"] as? String ?? ""
        let inserted = during["inserted"] as? Int ?? 0
        XCTAssertEqual((0..<inserted).filter { !titles.contains("demo \(batch) \($0)") }, [],
                       "the tablet holds every note written during the transfer", file: file, line: line)
        let printed = try await ProcessFleet.statusesFromFiles(["laptop", "phone", "tablet"].map(fleet.store))
        XCTAssertEqual(Set(printed).count, 1, "`synckernel status` prints the same namespaces for the three stores", file: file, line: line)
        print("join with \(heldRows) rows: fill \(filled - started), first join to two holding \(twoHold - filled), "
              + "second join and absorb \(transferred - twoHold), convergence \(done - transferred), total \(done - started)")
    }

    func testAThirdDeviceJoinsIsApprovedAbsorbsTheSnapshotAndConvergesOnWritesMadeMeanwhile() async throws {
        try await joinAbsorbAndConverge(rows: 6_000)
    }

    /// The figure: two devices holding at least 50,000 rows across ten namespaces (about
    /// 70 s in the debug build on 2 cores, so `make test-large` runs it, with the other `AtScale` tests).
    func testAtScaleAThirdDeviceJoinsTwoMembersHoldingFiftyThousandRowsAndConverges() async throws {
        try await joinAbsorbAndConverge(rows: 56_000, atLeast: 50_000)
    }

    func testRejectAJoinTheUserRefusedAndWriteNothingOnEitherSide() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop", "phone"])
        let devices = try await members(fleet, relay: server.url, rows: 0, extra: [])
        let before = try FileManager.default.contentsOfDirectory(atPath: fleet.account + "/devices").sorted()
        let tablet = try await joiner(fleet, relay: server.url, credential: try await credential(fleet), extra: [])
        for device in devices {
            guard let id = await approvalID(device) else { return XCTFail("no approval_requested on \(device.name)") }
            XCTAssertTrue(device.program.send("reject \(id)\n"))
        }
        let status = await tablet.program.waitForExit(timeout: .seconds(30))
        XCTAssertEqual(status, 1, "a rejected join exits 1")
        XCTAssertEqual(tablet.events("join_rejected").count, 1)
        XCTAssertTrue(tablet.program.errors.tail().contains("joinRejected"), tablet.program.errors.tail())
        XCTAssertTrue(tablet.events("ready").isEmpty, "a rejected device never starts")
        assertNothingWritten(fleet, before: before)
        for device in devices {
            let ended = device.events("approval_rejected").count
                + device.events("approval_withdrawn").filter { $0["cause"] as? String == "rejected" }.count
            XCTAssertEqual(ended, 1, "\(device.name) rejected, or withdrew its prompt on the other's rejection")
        }
    }

    func testAPromptIsWithdrawnWhereTheOtherDecidedAndASpentCredentialIsRefusedByADeviceThatJoinedAfter() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop", "phone"])
        let devices = try await members(fleet, relay: server.url, rows: 0, extra: [])
        let (laptop, phone) = (devices[0], devices[1])
        let credential = try await credential(fleet)
        let tablet = try await joiner(fleet, relay: server.url, credential: credential, extra: [])
        guard let laptopID = await approvalID(laptop), let phoneID = await approvalID(phone) else {
            return XCTFail("both members show the prompt")
        }
        let prompted = await laptop.program.errors.wait(timeout: .seconds(10)) { lines in
            lines.contains { $0.hasPrefix("synckernel device [laptop]: tablet (device ") && $0.contains("answer here on laptop within") }
        }
        XCTAssertTrue(prompted, "the prompt names the device asking and where it is answered:\n\(laptop.program.errors.tail())")
        XCTAssertTrue(laptop.program.send("approve \(laptopID)\n"))
        let withdrawn = await phone.waitForEvents("approval_withdrawn")
        XCTAssertTrue(withdrawn, "the phone withdrew its prompt; its log ends with:\n\(phone.program.errors.tail())")
        let notice = phone.events("approval_withdrawn").first ?? [:]
        XCTAssertEqual(notice["id"] as? String, phoneID)
        XCTAssertEqual(notice["cause"] as? String, "approved")
        XCTAssertEqual(notice["by"] as? String, "laptop")
        let logged = await phone.program.errors.wait(timeout: .seconds(10)) { lines in
            lines.contains("synckernel device [phone]: prompt \(phoneID) withdrawn: approved on laptop")
        }
        XCTAssertTrue(logged, phone.program.errors.tail())
        let ready = await tablet.waitForEvents("ready", timeout: .seconds(60))
        XCTAssertTrue(ready, "the tablet joined; its log ends with:\n\(tablet.program.errors.tail())")
        let waits = tablet.events("join_waiting")
        XCTAssertEqual(waits.first?["remaining_seconds"] as? Int, 35, "no sibling yet: the re-sends' 35 s")
        XCTAssertEqual(waits.first { $0["acknowledged"] as? Bool == true }?["remaining_seconds"] as? Int, 180, "then the decision wait")
        let counted = await tablet.program.errors.wait(timeout: .seconds(10)) { lines in
            lines.contains("synckernel device [tablet]: waiting 35 s more for a sibling to answer "
                           + "(nothing answers while no device of the account is online)")
        }
        XCTAssertTrue(counted, tablet.program.errors.tail())
        // The tablet was not a member when the credential was spent: it learns it from the members' ledger.
        let learned = await tablet.waitForEvents("sign_in_ledger_learned")
        XCTAssertTrue(learned, "the tablet learned the spent credential; its log ends with:\n\(tablet.program.errors.tail())")
        for device in devices {
            let status = await device.quit()
            XCTAssertEqual(status, 0, "\(device.name) quit cleanly")
        }
        let watch = try await joiner(fleet, name: "watch", relay: server.url, credential: credential, extra: [])
        let status = await watch.program.waitForExit(timeout: .seconds(30))
        XCTAssertEqual(status, 1, "a second use of the credential is refused")
        XCTAssertEqual(watch.events("join_refused").first?["reason"] as? String, "spent")
        let told = await watch.program.errors.wait(timeout: .seconds(10)) { lines in
            lines.contains { $0.contains("SK314") && $0.contains("admitted a device already") }
        }
        XCTAssertTrue(told, watch.program.errors.tail())
        let refusal = tablet.events("sign_in_dropped").last ?? [:]
        XCTAssertEqual(refusal["code"] as? String, "SJ113", "refused by the tablet, the only member online")
        XCTAssertEqual(refusal["answered"] as? Bool, true, "a refusal was sent back")
        XCTAssertFalse(FileManager.default.fileExists(atPath: fleet.directory + "/watch-account"), "nothing written")
    }

    func testRejectAJoinNobodyAnswersAfterTheResendBudgetWithTheHonestGap() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        let before = try FileManager.default.contentsOfDirectory(atPath: fleet.account + "/devices").sorted()
        let tablet = try await joiner(fleet, relay: server.url, credential: try await credential(fleet), extra: ["--join-retry-ms", "200"])
        let status = await tablet.program.waitForExit(timeout: .seconds(30))
        XCTAssertEqual(status, 1, "an unanswered join exits 1")
        XCTAssertEqual(tablet.events("join_request_sent").count, 7, "seven sends, then the wait ends")
        XCTAssertEqual(tablet.events("join_timed_out").first?["acknowledged"] as? Bool, false)
        let log = tablet.program.errors.tail()
        XCTAssertTrue(log.contains("SK311") && log.contains("nothing admits this one"), log)
        assertNothingWritten(fleet, before: before)
    }

    func testASiblingWhoseUploadFailsAnswersBrokenWhichTheNewDeviceTellsFromADecline() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        // A blob folder that cannot be made: the laptop's upload fails.
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url],
                                                    extra: ["--auto-approve", "--blobs", "folder:/dev/null/blobs"])
        addTeardownBlock { await laptop.stop() }
        _ = try await laptop.demoWrite(200)
        let tablet = try await joiner(fleet, relay: server.url, credential: try await credential(fleet), extra: ["--snapshot-retry-ms", "200"])
        let failed = await tablet.waitForEvents("snapshot_failed", timeout: .seconds(60))
        XCTAssertTrue(failed, "the snapshot request ended; the tablet's log ends with:\n\(tablet.program.errors.tail())")
        let reply = tablet.events("snapshot_reply").first ?? [:]
        XCTAssertEqual(reply["answer"] as? String, "broken")
        XCTAssertEqual(reply["stage"] as? String, "upload")
        XCTAssertEqual(reply["error"] as? String, "SK609")
        XCTAssertEqual(tablet.events("snapshot_failed").first?["error"] as? String, "SK703", "broken, not declined (SK702)")
        XCTAssertTrue(tablet.events("snapshot_absorbed").isEmpty)
        XCTAssertEqual(laptop.events("snapshot_answered").first?["answer"] as? String, "broken")
        let logged = await tablet.program.errors.wait(timeout: .seconds(10)) { lines in
            lines.contains { $0.hasPrefix("synckernel device [tablet]: snapshot reply from ")
                && $0.hasSuffix(": answer broken, stage upload, error SK609") }
        }
        XCTAssertTrue(logged, "the log names the answer in stable words:\n\(tablet.program.errors.tail())")
        // Still a member: the digest loop fills the tablet instead.
        let converged = try await ProcessFleet.waitForConvergence([laptop, tablet])
        XCTAssertTrue(converged, "the digest loop filled the tablet")
    }

    func testAnOfferWhoseBlobTheNewDeviceCannotFetchIsAbandonedWithItsReasonAndAckedNotOK() async throws {
        let server = try await startNatsServer()
        let fleet = try await ProcessFleet(devices: ["laptop"])
        // The laptop parks its blob in a folder the tablet does not read from.
        let laptop = try await DeviceProcess.launch(name: "laptop", store: fleet.store("laptop"), account: fleet.account, relay: [server.url],
                                                    extra: ["--auto-approve", "--blobs", "folder:\(fleet.directory)/laptop-blobs"])
        addTeardownBlock { await laptop.stop() }
        _ = try await laptop.demoWrite(200)
        let tablet = try await joiner(fleet, relay: server.url, credential: try await credential(fleet),
                                      extra: ["--snapshot-retry-ms", "200", "--blobs", "folder:\(fleet.directory)/tablet-blobs"])
        let failed = await tablet.waitForEvents("snapshot_failed", timeout: .seconds(60))
        XCTAssertTrue(failed, "the snapshot request ended; the tablet's log ends with:\n\(tablet.program.errors.tail())")
        XCTAssertEqual(tablet.events("snapshot_abandoned").first?["reason"] as? String, "blobUnavailable")
        XCTAssertEqual(tablet.events("snapshot_failed").first?["error"] as? String, "SK608", "the absorb's own error")
        XCTAssertTrue(tablet.events("snapshot_absorbed").isEmpty)
        XCTAssertTrue(tablet.events("snapshot_progress").filter { $0["phase"] as? String == "importing" }.isEmpty, "nothing imported")
        let acked = await laptop.waitForEvents("snapshot_acknowledged")
        XCTAssertTrue(acked)
        XCTAssertEqual(laptop.events("snapshot_acknowledged").first?["ok"] as? Bool, false)
        XCTAssertEqual(laptop.events("snapshot_acknowledged").first?["reason"] as? String, "blobUnavailable")
        let parked = try FileManager.default.contentsOfDirectory(atPath: fleet.directory + "/laptop-blobs").filter { $0.hasSuffix(".blob") }
        XCTAssertEqual(parked, [], "the acked blob was deleted")
        let converged = try await ProcessFleet.waitForConvergence([laptop, tablet])
        XCTAssertTrue(converged, "still a member: the digest loop filled the tablet")
    }

    /// Nothing of the tablet exists: no account directory (nor its staging folder), no store, and
    /// the members' directory holds the devices it held before.
    private func assertNothingWritten(_ fleet: ProcessFleet, before: [String], file: StaticString = #filePath, line: UInt = #line) {
        let files = FileManager.default
        XCTAssertFalse(files.fileExists(atPath: fleet.directory + "/tablet-account"), "no account directory", file: file, line: line)
        XCTAssertFalse(files.fileExists(atPath: fleet.directory + "/tablet-account.joining"), "no staging folder", file: file, line: line)
        XCTAssertFalse(files.fileExists(atPath: fleet.store("tablet")), "no store", file: file, line: line)
        XCTAssertEqual((try? files.contentsOfDirectory(atPath: fleet.account + "/devices").sorted()) ?? [], before,
                       "no certificate recorded for the tablet", file: file, line: line)
    }
}
