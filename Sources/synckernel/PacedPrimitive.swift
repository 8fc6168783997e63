import Foundation
import KernelBench
import Synchronization

/// A primitive run on a thread of its own at a paced rate while a device is flooded, so its cost
/// is measured in the conditions the device meets (a busy machine, caches shared with the relay
/// and the publisher, a call every so often rather than back to back) and set beside the device's
/// CPU per drop.
///
/// Invariant: each call is timed on the thread's CPU clock alone (the pauses between calls are not
/// counted); `finish` returns only once the thread has stopped.
final class PacedPrimitive: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let totals = Mutex<(nanoseconds: UInt64, calls: Int)>((0, 0))
    private let finished = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let done = Atomic<Bool>(false)

    /// Starts calling `body` about `rate` times a second.
    init(rate: Int, _ body: @escaping @Sendable () -> Void) {
        let pause = max(1, 1_000_000 / max(1, rate))
        Thread.detachNewThread { [self] in
            while !stopping.load(ordering: .acquiring) {
                let started = ThreadCPUClock.now
                body()
                let spent = ThreadCPUClock.now - started
                totals.withLock { $0 = ($0.nanoseconds + spent, $0.calls + 1) }
                usleep(UInt32(pause))
            }
            done.store(true, ordering: .releasing)
            finished.withLock { $0?.resume() }
        }
    }

    /// Stops the thread and returns the microseconds of CPU per call (nil when none ran).
    func finish() async -> Double? {
        stopping.store(true, ordering: .releasing)
        await withCheckedContinuation { continuation in
            let resumeNow = finished.withLock { slot -> Bool in
                if done.load(ordering: .acquiring) { return true }
                slot = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }
        let (nanoseconds, calls) = totals.withLock { $0 }
        return calls == 0 ? nil : Double(nanoseconds) / Double(calls) / 1_000
    }
}
