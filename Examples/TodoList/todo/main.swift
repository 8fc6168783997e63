import Foundation
import SyncDevice
import TodoNamespace

// `todo`: a to-do list kept in sync between the devices of one account, the example app of
// docs/device.md#app-integration. It prints the list at start and again whenever it changes (a
// command here or a sibling's change arriving), and reads commands, one a line, on standard input:
//
//   add TITLE        a task at the end of the list
//   done N / undo N  tick or untick task N (as the list numbers it)
//   rename N TITLE   retitle task N
//   move N M         move task N to place M
//   quit             stop (so does the end of the input)
//
// usage: todo --account DIR --name NAME --db PATH --relay URL

/// The list as the app shows it: tasks in list order.
@Sendable func list(_ reader: NamespaceReader<TodoNamespace>) throws(SyncKernelError) -> [TodoTask] {
    var tasks: [TodoTask] = []
    var after: [UInt8]?
    repeat {
        let page = try reader.rows(after: after, limit: 1_000)
        tasks += page.rows.map(\.row)
        after = page.next
    } while after != nil
    return tasks.sorted(by: TodoTask.listOrder)
}

func printList(_ tasks: [TodoTask]) {
    var lines = ["== list (\(tasks.count) tasks)"]
    for (index, task) in tasks.enumerated() { lines.append("\(index + 1). [\(task.done ? "x" : " ")] \(task.title)") }
    lines.append("== end")
    emit(lines.joined(separator: "\n"))
}

/// Writes `text` and a newline to standard output at once (unbuffered, so a reader of the pipe
/// sees each list as it is printed).
func emit(_ text: String) {
    FileHandle.standardOutput.write(Data((text + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("todo: \(message)\n".utf8))
    exit(64)
}

var options: [String: String] = [:]
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard flag.hasPrefix("--"), let value = arguments.popFirst() else { fail("usage: todo --account DIR --name NAME --db PATH --relay URL") }
    options[String(flag.dropFirst(2))] = value
}
guard let account = options["account"], let name = options["name"], let db = options["db"], let relay = options["relay"] else {
    fail("usage: todo --account DIR --name NAME --db PATH --relay URL")
}

let device = SyncDevice(SyncDeviceConfiguration(account: AccountDirectory(path: account), name: name, storePath: db,
                                                namespaces: try NamespaceSet([TodoNamespace.self]),
                                                relay: NatsRelayOptions(servers: [relay])))
do {
    try await device.start()
} catch {
    fail("could not start: \(error)")
}
let shown = Task.detached {
    for try await tasks in device.observe(TodoNamespace.self, list) { printList(tasks) }
}
// Standard input is read on a thread of its own: a blocking read must not hold the main actor.
let input = AsyncStream<String> { continuation in
    Thread.detachNewThread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
    }
}

/// Runs one command line; throws what the write throws.
func run(_ line: String) async throws {
    let words = line.split(separator: " ", maxSplits: 1).map(String.init)
    guard let command = words.first else { return }
    let rest = words.count > 1 ? words[1] : ""
    let tasks = try await device.read(TodoNamespace.self, list)
    func task(_ text: String) -> TodoTask? {
        Int(text).flatMap { $0 >= 1 && $0 <= tasks.count ? tasks[$0 - 1] : nil }
    }
    var changed: TodoTask?
    switch command {
    case "add":
        let id = (0..<16).map { _ in UInt8.random(in: .min ... .max) }
        changed = TodoTask(id: id, title: rest, position: OrderKey.between(tasks.last?.position, and: nil), updatedAt: .now)
    case "done", "undo":
        changed = task(rest).map { var task = $0; task.done = command == "done"; return task }
    case "rename":
        let parts = rest.split(separator: " ", maxSplits: 1).map(String.init)
        changed = parts.count == 2 ? task(parts[0]).map { var task = $0; task.title = parts[1]; return task } : nil
    case "move":
        let parts = rest.split(separator: " ").compactMap { Int($0) }
        if parts.count == 2, let moving = task(String(parts[0])), (1...tasks.count).contains(parts[1]) {
            let others = tasks.filter { $0.id != moving.id }
            let place = parts[1] - 1
            var moved = moving
            moved.position = OrderKey.between(place > 0 ? others[place - 1].position : nil,
                                              and: place < others.count ? others[place].position : nil)
            changed = moved
        }
    default:
        emit("todo: unknown command \(command)")
    }
    guard var task = changed else { return }
    task.updatedAt = .now
    let saved = task
    try await device.write(TodoNamespace.self) { tx throws(SyncKernelError) in try tx.save(saved) }
}

for await line in input {
    if line == "quit" { break }
    do {
        try await run(line)
    } catch {
        emit("todo: \(error)")
    }
}
shown.cancel()
await device.stop()
