import Dispatch
import Foundation
import SyncKernel
import Synchronization
import XCTest

/// `SerialThreadExecutor`: work runs one at a time on a thread of the executor's own;
/// an actor on it runs there; a body blocked on one executor holds up neither another executor
/// nor the cooperative pool; the thread ends when idle and comes back with the next work.
final class SerialThreadExecutorTests: XCTestCase {
    private struct Refused: Error, Equatable {
        let code: Int
    }

    /// What the bodies of one test saw, shared between them.
    private final class Overlap: Sendable {
        let running = Mutex(0)
        let overlapped = Mutex(false)
    }

    /// An actor that runs on the executor it is given.
    private actor Pinned {
        let executor: SerialThreadExecutor
        private(set) var order: [Int] = []

        init(executor: SerialThreadExecutor) {
            self.executor = executor
        }

        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        func record(_ value: Int) -> (onExecutor: Bool, thread: String?) {
            order.append(value)
            return (executor.isCurrent, Thread.current.name)
        }
    }

    func testBodiesRunOnTheExecutorsOwnThreadAndReturnOrThrowWhatTheyDo() async throws {
        let executor = SerialThreadExecutor(name: "test.serial")
        let overlap = Overlap()
        await withTaskGroup(of: String?.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    await executor.run { () -> String? in
                        if overlap.running.withLock({ $0 += 1; return $0 }) > 1 { overlap.overlapped.withLock { $0 = true } }
                        defer { overlap.running.withLock { $0 -= 1 } }
                        return Thread.current.name
                    }
                }
            }
            for await name in group { XCTAssertEqual(name, "test.serial") }
        }
        XCTAssertFalse(overlap.overlapped.withLock { $0 }, "one body at a time")
        let onExecutor = await executor.run { executor.isCurrent }
        XCTAssertTrue(onExecutor)
        XCTAssertFalse(executor.isCurrent, "the test's own thread is not the executor's")
        do {
            try await executor.run { () throws(Refused) in throw Refused(code: 7) }
            XCTFail("the body's error comes back")
        } catch {
            XCTAssertEqual(error, Refused(code: 7))
        }
    }

    func testAnActorOnTheExecutorRunsOnItsThreadInTheOrderCalled() async {
        let pinned = Pinned(executor: SerialThreadExecutor(name: "test.actor"))
        for index in 0..<20 {
            let (onExecutor, thread) = await pinned.record(index)
            XCTAssertTrue(onExecutor)
            XCTAssertEqual(thread, "test.actor")
        }
        let order = await pinned.order
        XCTAssertEqual(order, Array(0..<20))
    }

    func testABlockedBodyHoldsUpNeitherAnotherExecutorNorTheCooperativePool() async {
        let blocked = SerialThreadExecutor(name: "test.blocked")
        let other = SerialThreadExecutor(name: "test.other")
        let release = DispatchSemaphore(value: 0)
        let held = Task { await blocked.run { release.wait(timeout: .now() + 30) == .success } }
        // More tasks than the pool has threads, each blocking none of them.
        let width = ProcessInfo.processInfo.activeProcessorCount + 2
        let stuck = (0..<width).map { _ in
            Task { await SerialThreadExecutor(name: "test.stuck").run { release.wait(timeout: .now() + 30) == .success } }
        }
        let answered = await other.run { 42 }
        XCTAssertEqual(answered, 42, "another executor answers while the others are blocked")
        let pool = await Task.detached { 43 }.value
        XCTAssertEqual(pool, 43, "the cooperative pool still runs tasks")
        for _ in 0..<(width + 1) { release.signal() }
        let releasedInTime = await held.value
        XCTAssertTrue(releasedInTime)
        for task in stuck {
            let value = await task.value
            XCTAssertTrue(value)
        }
    }

    func testTheThreadEndsWhenIdleAndAnotherStartsWithTheNextWork() async throws {
        let executor = SerialThreadExecutor(name: "test.idle", idleMillis: 5)
        XCTAssertFalse(executor.isThreadRunning, "no thread before any work")
        let running = await executor.run { executor.isThreadRunning }
        XCTAssertTrue(running)
        let deadline = ContinuousClock.now + .seconds(10)
        while executor.isThreadRunning, ContinuousClock.now < deadline { await Task.yield() }
        XCTAssertFalse(executor.isThreadRunning, "the thread ended with nothing to do")
        let onExecutor = await executor.run { executor.isCurrent && executor.isThreadRunning }
        XCTAssertTrue(onExecutor, "the next work starts a thread again and runs on it")
    }
}
