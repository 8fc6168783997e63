import Foundation
import Synchronization

/// A storage wrapper for tests: injects any error before or after an operation, slows writes,
/// models crashes between a put and its state save, and counts completed operations.
///
/// Invariant: without injected faults, a delay or crash points it behaves exactly like the
/// wrapped storage, except for the identity and remote ids when told to stand in for them.
public final class FaultInjectingStorage: CloudStorage {
    /// The operations of `CloudStorage`.
    public enum Operation: String, Sendable, CaseIterable {
        case list, identityKey, readBytes, writeBytes, writeFile, downloadFile, delete, prefetch
        case acquireLease, renewLease, releaseLease, removeOrphans
    }

    /// When an injected error is thrown.
    public enum Timing: Sendable, Hashable {
        /// Instead of the operation: nothing happens in the wrapped storage.
        case before
        /// After the operation completed in the wrapped storage.
        case after
    }

    private struct Fault {
        var operation: Operation
        var path: String?
        var error: any Error & Sendable
        var timing: Timing
        var remaining: Int
    }

    private struct State {
        var faults: [Fault] = []
        var completed: [(Operation, String)] = []
        var identity: String??
        var remoteIds: [String: String] = [:]
        var nextId = 1
        var hook: (@Sendable (Operation, String) async throws -> Void)?
    }

    private let inner: any CloudStorage
    private let assignsRemoteIds: Bool
    private let crashPoints: CrashPoints?
    private let writeDelay: Double
    private let sleeper: any Sleeper
    private let state: Mutex<State>

    /// Wraps `inner`. With `assignsRemoteIds`, files get stable ids like a drive's (kept across
    /// overwrites, new after a delete); `crashPoints` are passed before and after every write,
    /// download and delete; every write first waits `writeDelay` seconds on `sleeper`.
    public init(wrapping inner: any CloudStorage, assignsRemoteIds: Bool = false, crashPoints: CrashPoints? = nil,
                writeDelay: Double = 0, sleeper: any Sleeper = TaskSleeper()) {
        self.inner = inner
        self.assignsRemoteIds = assignsRemoteIds
        self.crashPoints = crashPoints
        self.writeDelay = writeDelay
        self.sleeper = sleeper
        state = Mutex(State())
    }

    /// Makes the next `times` calls of `operation` (on `path`, or on any path) throw `error`.
    public func inject(_ error: any Error & Sendable, on operation: Operation, path: String? = nil,
                       timing: Timing = .before, times: Int = 1) {
        state.withLock { $0.faults.append(Fault(operation: operation, path: path, error: error, timing: timing, remaining: times)) }
    }

    /// Stands in for the wrapped storage's identity key (`nil` models a drive without one).
    public func overrideIdentity(_ key: String?) {
        state.withLock { $0.identity = .some(key) }
    }

    /// Calls `hook` before every operation with its path ("" for none); tests act mid-run with it.
    public func onOperation(_ hook: @escaping @Sendable (Operation, String) async throws -> Void) {
        state.withLock { $0.hook = hook }
    }

    /// Every completed call as "operation path", in order.
    public func journal() -> [String] {
        state.withLock { $0.completed.map { "\($0.0.rawValue) \($0.1)" } }
    }

    /// The paths of the completed calls of `operation`, in order.
    public func completed(_ operation: Operation) -> [String] {
        state.withLock { $0.completed.filter { $0.0 == operation }.map(\.1) }
    }

    /// Lists the wrapped storage, with assigned remote ids when asked to assign them.
    public func list() async throws -> [RemoteFile] {
        try await perform(.list, "") {
            let files = try await inner.list()
            guard assignsRemoteIds else { return files }
            return state.withLock { state in files.map { file in
                var file = file
                file.remoteId = state.remoteIds[file.path]
                return file
            } }
        }
    }

    /// The overridden identity, or the wrapped storage's.
    public func identityKey() async throws -> String? {
        try await perform(.identityKey, "") {
            if let identity = state.withLock({ $0.identity }) { return identity }
            return try await inner.identityKey()
        }
    }

    /// Reads through to the wrapped storage.
    public func readBytes(_ path: String) async throws -> Data {
        try await perform(.readBytes, path) { try await inner.readBytes(path) }
    }

    /// Writes through to the wrapped storage after the write delay.
    public func writeBytes(_ path: String, _ data: Data) async throws -> RemoteFile {
        try await perform(.writeBytes, path) {
            try await sleeper.sleep(seconds: writeDelay)
            return assignId(try await inner.writeBytes(path, data))
        }
    }

    /// Writes through to the wrapped storage after the write delay.
    public func writeFile(_ path: String, from localURL: URL) async throws -> RemoteFile {
        try await perform(.writeFile, path) {
            try await sleeper.sleep(seconds: writeDelay)
            return assignId(try await inner.writeFile(path, from: localURL))
        }
    }

    /// Downloads through the wrapped storage.
    public func downloadFile(_ path: String, to localURL: URL) async throws {
        try await perform(.downloadFile, path) { try await inner.downloadFile(path, to: localURL) }
    }

    /// Deletes through the wrapped storage and forgets the path's assigned id.
    public func delete(_ path: String) async throws {
        try await perform(.delete, path) {
            try await inner.delete(path)
            _ = state.withLock { $0.remoteIds.removeValue(forKey: path) }
        }
    }

    /// Forwards the hint; never throws.
    public func prefetch(_ paths: [String]) async {
        let hook = state.withLock { $0.hook }
        try? await hook?(.prefetch, paths.joined(separator: "\n"))
        await inner.prefetch(paths)
        state.withLock { $0.completed.append((.prefetch, paths.joined(separator: "\n"))) }
    }

    /// Claims the lease of the wrapped storage.
    public func acquireLease(_ claim: LeaseClaim) async throws -> LeaseAnswer {
        try await perform(.acquireLease, "") { try await inner.acquireLease(claim) }
    }

    /// Renews the lease of the wrapped storage.
    public func renewLease(_ lease: RemoteLease, for claim: LeaseClaim) async throws -> LeaseAnswer {
        try await perform(.renewLease, "") { try await inner.renewLease(lease, for: claim) }
    }

    /// Releases the lease of the wrapped storage; never throws.
    public func releaseLease(_ lease: RemoteLease) async {
        await inner.releaseLease(lease)
        state.withLock { $0.completed.append((.releaseLease, "")) }
    }

    /// Removes the wrapped storage's orphans.
    public func removeOrphans() async throws -> [String] {
        try await perform(.removeOrphans, "") { try await inner.removeOrphans() }
    }

    private func assignId(_ file: RemoteFile) -> RemoteFile {
        guard assignsRemoteIds else { return file }
        return state.withLock { state in
            var file = file
            if let id = state.remoteIds[file.path] {
                file.remoteId = id
            } else {
                file.remoteId = "id-\(state.nextId)"
                state.remoteIds[file.path] = file.remoteId
                state.nextId += 1
            }
            return file
        }
    }

    private func perform<Result>(_ operation: Operation, _ path: String,
                                 _ body: () async throws -> Result) async throws -> Result {
        let hook = state.withLock { $0.hook }
        try await hook?(operation, path)
        let crashes = [.writeBytes, .writeFile, .downloadFile, .delete].contains(operation)
        if crashes { try crashPoints?.pass("before \(operation.rawValue) \(path)") }
        if let error = takeFault(operation, path, .before) { throw error }
        let result = try await body()
        state.withLock { $0.completed.append((operation, path)) }
        if crashes { try crashPoints?.pass("after \(operation.rawValue) \(path)") }
        if let error = takeFault(operation, path, .after) { throw error }
        return result
    }

    private func takeFault(_ operation: Operation, _ path: String, _ timing: Timing) -> (any Error)? {
        state.withLock { state in
            guard let index = state.faults.firstIndex(where: {
                $0.operation == operation && $0.timing == timing && ($0.path == nil || $0.path == path)
            }) else { return nil }
            let error = state.faults[index].error
            state.faults[index].remaining -= 1
            if state.faults[index].remaining == 0 { state.faults.remove(at: index) }
            return error
        }
    }
}
