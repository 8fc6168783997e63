import Foundation
import SyncEnvelope
import SyncKernel
import SyncKernelTestKit
import TestServerSupport
import TestServers
import TodoNamespace
import XCTest

/// The example app (`Examples/TodoList`): its namespace passes the conformance kit, its order keys
/// always leave room between two tasks, and two `todo` processes over a nats-server keep one list:
/// each prints the list again when the other's change arrives.
final class TodoExampleTests: XCTestCase {
    func testTheTodoNamespaceConforms() throws {
        for seed in ConformanceSuite<TodoSubject>.seeds() {
            try ConformanceSuite(TodoSubject.self, seed: seed).run()
        }
    }

    func testTheOutlineNamespaceConforms() throws {
        for seed in ConformanceSuite<OutlineSubject>.seeds() {
            try ConformanceSuite(OutlineSubject.self, seed: seed).run()
        }
    }

    func testAnOrderKeyBetweenTwoOthersAlwaysExistsAndSortsBetweenThem() {
        var generator = SeededKeys(seed: 5)
        for _ in 0..<200 {
            var keys: [String] = []
            for _ in 0..<40 {
                let place = keys.isEmpty ? 0 : generator.next(below: keys.count + 1)
                let key = OrderKey.between(place > 0 ? keys[place - 1] : nil, and: place < keys.count ? keys[place] : nil)
                XCTAssertTrue(OrderKey.isValid(key), key)
                if place > 0 { XCTAssertLessThan(keys[place - 1], key) }
                if place < keys.count { XCTAssertLessThan(key, keys[place]) }
                keys.insert(key, at: place)
            }
            XCTAssertEqual(keys, keys.sorted())
        }
        XCTAssertFalse(OrderKey.isValid(""))
        XCTAssertFalse(OrderKey.isValid("ba"), "a key ending in a leaves no room below it")
        XCTAssertFalse(OrderKey.isValid("bÄ"))
    }

    /// Where `swift build` put the example's binary: beside the test bundle.
    private func todoBinary() throws -> String {
        let folder = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent()
        let path = folder.appendingPathComponent("todo").path
        struct Missing: Error, CustomStringConvertible {
            let description: String
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw Missing(description: "no todo binary at \(path): build with `swift build --build-tests`")
        }
        return path
    }

    func testTwoTodoProcessesKeepOneListAndEachPrintsTheOthersChanges() async throws {
        let server = try await startNatsServer()
        let folder = NSTemporaryDirectory() + "synckernel-todo-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: folder) }
        let account = AccountDirectory(path: folder + "/account")
        _ = try account.create()
        let expiry = Int64(Date().timeIntervalSince1970) + 86_400
        for name in ["laptop", "phone"] { try account.addDevice(name: name, expiresAt: expiry) }
        let binary = try todoBinary()
        var apps: [WatchedProgram] = []
        for name in ["laptop", "phone"] {
            let app = try await WatchedProgram.launch(binary, ["--account", account.path, "--name", name,
                                                               "--db", "\(folder)/\(name).sqlite", "--relay", server.url])
            addTeardownBlock { await app.stop() }
            apps.append(app)
        }
        let (laptop, phone) = (apps[0], apps[1])
        func shows(_ app: WatchedProgram, _ lines: [String]) async -> Bool {
            await app.output.wait(timeout: .seconds(60)) { output in
                guard let end = output.lastIndex(of: "== end"), let start = output[..<end].lastIndex(where: { $0.hasPrefix("== list") }) else {
                    return false
                }
                return Array(output[(start + 1)..<end]) == lines
            }
        }
        let started = await shows(laptop, [])
        XCTAssertTrue(started, laptop.errors.tail())

        XCTAssertTrue(laptop.send("add buy milk\n"))
        let arrived = await shows(phone, ["1. [ ] buy milk"])
        XCTAssertTrue(arrived, "the phone prints the laptop's task: \(phone.output.tail())")
        XCTAssertTrue(phone.send("done 1\n"))
        let ticked = await shows(laptop, ["1. [x] buy milk"])
        XCTAssertTrue(ticked, "the laptop prints the phone's tick: \(laptop.output.tail())")
        XCTAssertTrue(laptop.send("add call the plumber\n"))
        let second = await shows(phone, ["1. [x] buy milk", "2. [ ] call the plumber"])
        XCTAssertTrue(second, phone.output.tail())
        XCTAssertTrue(phone.send("move 2 1\n"))
        XCTAssertTrue(phone.send("rename 2 buy oat milk\n"))
        let reordered = await shows(laptop, ["1. [ ] call the plumber", "2. [x] buy oat milk"])
        XCTAssertTrue(reordered, "moved and renamed on the phone: \(laptop.output.tail())")

        for app in apps {
            XCTAssertTrue(app.send("quit\n"))
            let status = await app.waitForExit(timeout: .seconds(30))
            XCTAssertEqual(status, 0, app.errors.tail())
        }
    }
}

/// A seeded source of small random numbers for the order-key test.
private struct SeededKeys {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next(below bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
}

/// A random order key: one to four letters, none of them `a`.
private func randomPosition(_ generator: inout FieldGenerator) -> String {
    let letters = Array("bcdefghijklmnopqrstuvwxyz")
    return String((0..<generator.int(1...4)).map { _ in letters[generator.int(0...(letters.count - 1))] })
}

/// The conformance kit's view of the example's to-do namespace.
enum TodoSubject: NamespaceConformance {
    typealias Namespace = TodoNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> TodoTask {
        TodoTask(id: generator.bytes(16), title: generator.text(), done: generator.chance(0.5), position: randomPosition(&generator),
                 updatedAt: generator.date())
    }
}

/// The conformance kit's view of the example's outline namespace.
enum OutlineSubject: NamespaceConformance {
    typealias Namespace = OutlineNamespace

    static func makeRow(_ generator: inout FieldGenerator) -> OutlineItem {
        let id = generator.bytes(16)
        var parent: [UInt8]? = generator.chance(0.5) ? generator.bytes(16) : nil
        if parent == id { parent = nil }
        return OutlineItem(id: id, title: generator.text(), parent: parent, position: randomPosition(&generator), updatedAt: generator.date())
    }
}
