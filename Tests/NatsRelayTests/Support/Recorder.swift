import Synchronization
import XCTest

/// Everything a stream (or a test, by hand) yielded, with waits for what a test expects to see.
///
/// Invariants: items are kept in arrival order; a recorder has one source, its stream or the
/// test's `append` calls, so a hand `append` to a recorder that drains a stream fails the test at
/// the caller and records nothing; a wait returns as soon as its condition holds on the items so
/// far, or false at its timeout; the draining task ends with the stream.
final class Recorder<Element: Sendable>: Sendable {
    private struct State {
        var items: [Element] = []
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    private let drainsStream: Bool

    /// A recorder fed by hand (`append`).
    init() {
        drainsStream = false
    }

    /// A recorder draining `stream`.
    init(_ stream: AsyncStream<Element>) {
        drainsStream = true
        Task { [weak self] in
            for await item in stream {
                guard let self else { return }
                self.record(item)
            }
        }
    }

    /// Records `item` and wakes every wait; a recorder that drains a stream refuses it.
    func append(_ item: Element, file: StaticString = #filePath, line: UInt = #line) {
        guard !drainsStream else {
            XCTFail("a recorder that drains a stream is not fed by hand", file: file, line: line)
            return
        }
        record(item)
    }

    /// Records `item` and wakes every wait.
    private func record(_ item: Element) {
        let waiters = state.withLock { state in
            state.items.append(item)
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Everything recorded so far.
    var items: [Element] { state.withLock { $0.items } }

    /// Waits until `condition` holds, checking it now and after every new item (it may read more
    /// than the items: a store the items report on); whether it held within `timeout`.
    func wait(timeout: Duration, until condition: @escaping @Sendable ([Element]) async -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while true {
            let seen = state.withLock { $0.items.count }
            if await condition(items) { return true }
            guard ContinuousClock.now < deadline else { return false }
            guard await next(after: seen, until: deadline) else { return await condition(items) }
        }
    }

    /// Waits for an item beyond the first `count`, until `deadline`; false at the deadline.
    private func next(after count: Int, until deadline: ContinuousClock.Instant) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.arrival(after: count) }
            group.addTask {
                try? await Task.sleep(until: deadline)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Returns once more than `count` items were recorded (or the task is cancelled).
    private func arrival(after count: Int) async -> Bool {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state in
                    if state.items.count > count || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
        return !Task.isCancelled
    }
}

/// The relay tests wait on recorders: check they record in order, wake and time out as they
/// claim, and refuse a second source.
final class RecorderSelfTests: XCTestCase {
    /// Failures an expected misuse raised, instead of failing this test.
    private var caught: [(description: String, line: Int)] = []
    private var catching = false

    override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int,
                                expected: Bool) {
        guard catching else {
            return super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
        caught.append((description, lineNumber))
    }

    func testAStreamIsRecordedInArrivalOrder() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let recorder = Recorder(stream)
        for item in 0..<200 { continuation.yield(item) }
        continuation.finish()
        let all = await recorder.wait(timeout: .seconds(60)) { $0.count == 200 }
        XCTAssertTrue(all)
        XCTAssertEqual(recorder.items, Array(0..<200))
    }

    func testAWaitHoldsAtOnceOrWakesOnTheItemThatMakesItHold() async {
        let recorder = Recorder<Int>()
        recorder.append(1)
        let now = await recorder.wait(timeout: .seconds(60)) { $0 == [1] }
        XCTAssertTrue(now)
        let later = Task { await recorder.wait(timeout: .seconds(60)) { $0.count == 3 } }
        recorder.append(2)
        recorder.append(3)
        let elapsed = await ContinuousClock().measure {
            let held = await later.value
            XCTAssertTrue(held)
        }
        XCTAssertLessThan(elapsed, .seconds(60), "woken by the third item, not by the timeout")
        XCTAssertEqual(recorder.items, [1, 2, 3])
    }

    func testAWaitReturnsFalseAtItsTimeout() async {
        let recorder = Recorder<Int>()
        recorder.append(1)
        let start = ContinuousClock.now
        let held = await recorder.wait(timeout: .milliseconds(50)) { $0.count > 1 }
        XCTAssertFalse(held)
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(50))
    }

    func testRejectAHandAppendToARecorderThatDrainsAStream() async {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        let recorder = Recorder(stream)
        catching = true
        let misuseLine = #line + 1
        recorder.append(7)
        catching = false
        XCTAssertEqual(caught.map(\.line), [misuseLine], "failed once, at the caller")
        XCTAssertTrue(caught.first?.description.contains("not fed by hand") ?? false, "\(caught)")
        continuation.yield(1)
        continuation.finish()
        let one = await recorder.wait(timeout: .seconds(60)) { !$0.isEmpty }
        XCTAssertTrue(one)
        XCTAssertEqual(recorder.items, [1], "the refused item was not recorded")
    }
}
