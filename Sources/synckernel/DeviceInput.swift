import Foundation

/// The standard input of `synckernel device`, as bounded lines.
///
/// Invariants: a line longer than `maxLineBytes` is reported once as `overlong` and its bytes
/// are dropped, never buffered past the bound; a final line without its newline still counts;
/// the end of input ends the stream and nothing else (the device keeps running until `quit` or a
/// signal); the reader holds at most one line the consumer has not taken (it waits for the
/// consumer before it reads more, so input cannot pile up in memory).
enum DeviceInput {
    /// The longest line taken, in bytes.
    static let maxLineBytes = 4_096

    /// One line of input.
    enum Line: Sendable {
        /// A line within the bound, without its newline.
        case text(String)
        /// A line past the bound (its bytes were dropped).
        case overlong
    }

    /// Lines read from `descriptor` on a thread of their own; `taken` must be signalled once per line.
    static func lines(from descriptor: Int32, taken: DispatchSemaphore) -> AsyncStream<Line> {
        let (stream, continuation) = AsyncStream.makeStream(of: Line.self)
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4_096)
            var line: [UInt8] = []
            var overlong = false
            func hand(_ item: Line) {
                continuation.yield(item)
                taken.wait()
            }
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for byte in buffer[..<count] {
                    if byte == UInt8(ascii: "\n") {
                        hand(overlong ? .overlong : .text(String(decoding: line, as: UTF8.self)))
                        line.removeAll(keepingCapacity: true)
                        overlong = false
                    } else if line.count < maxLineBytes, !overlong {
                        line.append(byte)
                    } else {
                        overlong = true
                        line.removeAll(keepingCapacity: true)
                    }
                }
            }
            if overlong {
                hand(.overlong)
            } else if !line.isEmpty {
                hand(.text(String(decoding: line, as: UTF8.self)))
            }
            continuation.finish()
        }
        return stream
    }
}
