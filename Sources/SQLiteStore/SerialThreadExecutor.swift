import Foundation
import Synchronization

/// A serial executor with a thread of its own: what blocking work (SQLite, files, sockets) runs
/// on, so it never holds a thread of Swift's cooperative pool or an actor that serves something
/// else, while the caller suspends (GRDB's `DatabaseQueue` does the same with a dispatch queue).
///
/// Use it as an actor's executor (`unownedExecutor`), so everything the actor does runs on this
/// thread, or hand it one blocking body at a time with `run(_:)`.
///
/// Invariants: jobs and bodies run one at a time, in the order they were enqueued, on a thread
/// named `name`; the thread starts when work arrives and ends after `idleMillis` with nothing to
/// do, so an executor nobody uses holds no thread (a test or a host that makes many never
/// accumulates them) and nothing outlives the last work given to it; while the thread runs it
/// holds the executor, which therefore lives as long as work is pending.
public final class SerialThreadExecutor: SerialExecutor, Sendable {
    /// One piece of work: an actor's job or a body given to `run(_:)`.
    private enum Work: Sendable {
        case job(UnownedJob)
        case body(@Sendable () -> Void)
    }

    private struct Queue {
        var items: [Work] = []
        var head = 0
        var threadRunning = false
        /// The thread found nothing to do and waits on `wake`: the next submit signals it (and
        /// only then, so the semaphore never holds more than one wake).
        var waiting = false

        mutating func pop() -> Work? {
            guard head < items.count else { return nil }
            let work = items[head]
            head += 1
            if head == items.count {
                items.removeAll(keepingCapacity: true)
                head = 0
            }
            return work
        }
    }

    /// The name the thread carries (shown by debuggers and `Thread.current.name`).
    public let name: String
    /// How long the thread waits for more work before it ends.
    public let idleMillis: Int
    private let queue = Mutex(Queue())
    private let wake = DispatchSemaphore(value: 0)

    /// An executor whose thread is named `name` and ends after `idleMillis` (at least 1) idle.
    public init(name: String, idleMillis: Int = 1_000) {
        self.name = name
        self.idleMillis = max(1, idleMillis)
    }

    /// Enqueues an actor's job (the runtime calls it).
    public func enqueue(_ job: consuming ExecutorJob) {
        submit(.job(UnownedJob(job)))
    }

    /// Runs `body` on this executor's thread, after the work enqueued before it, and returns what
    /// it returns; the caller suspends meanwhile.
    public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            submit(.body {
                do throws(E) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            })
        }
        return try result.get()
    }

    /// Whether the calling code runs on this executor's thread.
    public var isCurrent: Bool {
        Thread.current.threadDictionary[Self.currentKey] as? ObjectIdentifier == ObjectIdentifier(self)
    }

    /// Whether the executor's thread runs now (it ends after `idleMillis` with nothing to do).
    package var isThreadRunning: Bool { queue.withLock { $0.threadRunning } }

    private static let currentKey = "synckernel.serial-thread-executor"

    private func submit(_ work: Work) {
        enum Action { case start, wake, none }
        let action = queue.withLock { queue -> Action in
            queue.items.append(work)
            if !queue.threadRunning {
                queue.threadRunning = true
                return .start
            }
            guard queue.waiting else { return .none }
            queue.waiting = false
            return .wake
        }
        switch action {
        case .start:
            let thread = Thread { self.drain() }
            thread.name = name
            thread.start()
        case .wake: wake.signal()
        case .none: break
        }
    }

    /// The thread's loop: runs work until none came for `idleMillis`.
    private func drain() {
        // Named again from inside: on Linux a new thread starts with the name of the one that made
        // it, and the name given before `start()` is not always applied to the system thread.
        Thread.current.name = name
        Thread.current.threadDictionary[Self.currentKey] = ObjectIdentifier(self)
        let executor = asUnownedSerialExecutor()
        while true {
            let next = queue.withLock { queue -> Work? in
                if let work = queue.pop() { return work }
                queue.waiting = true
                return nil
            }
            if let work = next {
                switch work {
                case .job(let job): job.runSynchronously(on: executor)
                case .body(let body): body()
                }
                continue
            }
            if wake.wait(timeout: .now() + .milliseconds(idleMillis)) == .success { continue }
            // Idle for `idleMillis`: end, unless work came meanwhile (its submit cleared `waiting`
            // and signalled, which the next wait takes).
            let done = queue.withLock { queue in
                guard queue.waiting, queue.head >= queue.items.count else { return false }
                queue.waiting = false
                queue.threadRunning = false
                return true
            }
            if done { return }
        }
    }
}
