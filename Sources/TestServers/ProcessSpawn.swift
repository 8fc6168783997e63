import Foundation

/// How the test support starts a process: `posix_spawn` with chosen descriptors, an empty signal
/// mask and default signal actions, and pipes whose ends this process keeps are close-on-exec.
///
/// Invariants: the child gets exactly the descriptors it is given (duplicated onto the numbers
/// asked for) plus whatever was not close-on-exec here; it starts with no signal blocked and every
/// signal at its default action (a test process blocks most signals on its threads, and a child
/// inheriting that mask could neither be stopped with SIGTERM nor reap its own children).
enum ProcessSpawn {
    /// A pipe whose two ends are close-on-exec (a spawned child gets duplicates of its ends).
    static func pipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Spawns `arguments` (the first is the executable's path) with `descriptors` (this process's
    /// descriptor for each number the child gets): the child's process id, or the errno.
    static func spawn(_ arguments: [String], descriptors: [(own: Int32, child: Int32)]) -> Result<pid_t, SpawnError> {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        for (own, child) in descriptors { posix_spawn_file_actions_adddup2(&actions, own, child) }
        var empty = sigset_t()
        var all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let copies = arguments.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var argv = copies + [nil]
        var pid: pid_t = 0
        let status = posix_spawn(&pid, arguments[0], &actions, &attributes, &argv, environ)
        return status == 0 ? .success(pid) : .failure(SpawnError(code: status))
    }

    /// Reads `descriptor` to its end on a thread of its own, handing each read to `sink`, then
    /// closes it and calls `end`.
    static func drain(_ descriptor: Int32, into sink: @escaping @Sendable ([UInt8]) -> Void, end: @escaping @Sendable () -> Void) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 16_384)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    sink(Array(buffer[..<count]))
                } else if count < 0, errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(descriptor)
            end()
        }
    }

    /// Waits for `pid` on a thread of its own and calls `exited` with its wait status.
    static func reap(_ pid: pid_t, exited: @escaping @Sendable (Int32) -> Void) {
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            exited(status)
        }
    }
}

/// An errno from `posix_spawn`.
struct SpawnError: Error {
    /// The errno.
    let code: Int32
}
