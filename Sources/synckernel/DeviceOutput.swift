import Foundation
import Synchronization

/// Where `synckernel device` writes: JSON lines on standard output, log lines on standard error.
///
/// Invariants: each line is written whole with one `write` under a lock, so lines from the event
/// printer and the command handler never interleave; every log line names the device
/// (`synckernel device [NAME]: ...`), so the lines of devices sharing a terminal stay apart.
final class DeviceOutput: Sendable {
    private let lock = Mutex(())
    /// The device's name, in every log line.
    let device: String

    /// The output of the device named `device`.
    init(device: String) {
        self.device = device
    }

    /// Writes `text` and a newline to standard output.
    func line(_ text: String) {
        write(text + "\n", to: STDOUT_FILENO)
    }

    /// Rewrites the progress line on standard error (a terminal) with `text`.
    func progress(_ text: String) {
        write("\r" + text + "\u{1B}[K", to: STDERR_FILENO)
    }

    /// Writes `text` to standard error as a log line.
    func log(_ text: String) {
        write("synckernel device [\(device)]: \(text)\n", to: STDERR_FILENO)
    }

    private func write(_ text: String, to descriptor: Int32) {
        lock.withLock { _ in
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }
                bytes = bytes.dropFirst(written)
            }
        }
    }
}
