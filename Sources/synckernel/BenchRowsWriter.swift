import Foundation
import NotebookNamespace
import SyncDevice
import SyncKernel
import SyncKernelSimulator

/// `bench-rows OP SEED STREAM FIRST COUNT BYTES VARIANT` of `synckernel device`: notebook rows of
/// exactly BYTES encoded bytes, numbered FIRST up to FIRST + COUNT in stream STREAM of SEED,
/// inserted, edited or deleted, in transactions of at most `chunk` rows; `synckernel bench-e2e`
/// preloads its stores and writes its differences with it.
///
/// Invariants: the key of row I of a stream is the same in every process (`key(seed:stream:index:)`,
/// from a seeded generator), so two devices address the same rows without reading them; a row's
/// encoding (`NotebookNamespace.rowEncoding`) is exactly `rowBytes` long whenever the fixed fields
/// allow (`bodyLength`); an edit's body depends on VARIANT, so two devices editing one row with
/// different variants write concurrent versions (a conflict); the count returned is that of
/// committed transactions only (a stop asked for between two transactions ends the command early).
struct BenchRowsWriter {
    /// What a command does to each row of its range.
    enum Operation: String {
        /// Saves the row new (created now).
        case insert
        /// Saves the row again with a body of its variant and a later `updatedAt`.
        case edit
        /// Deletes the row's key.
        case delete
    }

    /// One parsed command.
    struct Request {
        /// What is done to each row.
        let operation: Operation
        /// The seed every key and body derives from.
        let seed: UInt64
        /// The stream the rows are numbered in.
        let stream: UInt64
        /// The first row's number.
        let first: Int
        /// How many rows.
        let count: Int
        /// The encoded size of each row written.
        let rowBytes: Int
        /// What an edit's body derives from beside the row.
        let variant: UInt64

        /// Parses the words after `bench-rows`; nil unless all seven parse and are in range.
        init?(_ words: [Substring]) {
            guard words.count == 7, let operation = Operation(rawValue: String(words[0])), let seed = UInt64(words[1]),
                  let stream = UInt64(words[2]), let first = Int(words[3]), first >= 0, let count = Int(words[4]),
                  (1...BenchRowsWriter.maxRows).contains(count), let rowBytes = Int(words[5]),
                  (BenchRowsWriter.minRowBytes...BenchRowsWriter.maxRowBytes).contains(rowBytes), let variant = UInt64(words[6])
            else { return nil }
            self.operation = operation
            self.seed = seed
            self.stream = stream
            self.first = first
            self.count = count
            self.rowBytes = rowBytes
            self.variant = variant
        }
    }

    /// The most rows one command takes.
    static let maxRows = 1_000_000
    /// Rows per transaction: a difference of up to this many rows is one transaction.
    static let chunk = 100_000
    /// The smallest row size taken: the fixed fields with an empty body.
    static let minRowBytes = 64
    /// The largest row size taken.
    static let maxRowBytes = 100_000
    /// The usage of the command, for the error line.
    static let usage = "bench-rows takes insert|edit|delete SEED STREAM FIRST COUNT(1 to \(maxRows)) "
        + "BYTES(\(minRowBytes) to \(maxRowBytes)) VARIANT"

    /// The device written to.
    let device: SyncDevice

    /// The key of row `index` of `stream` under `seed`: 16 bytes from a generator seeded by all three.
    static func key(seed: UInt64, stream: UInt64, index: Int) -> [UInt8] {
        var random = generator(seed: seed, stream: stream, index: index, salt: 0)
        return (0..<2).flatMap { _ in withUnsafeBytes(of: random.next().littleEndian, Array.init) }
    }

    /// The note of row `index` of `stream`, `rowBytes` long encoded, with the body of `variant`
    /// (0 for an insert) stamped `at`.
    static func note(seed: UInt64, stream: UInt64, index: Int, rowBytes: Int, variant: UInt64, created: Date, at: Date) -> Note {
        var random = generator(seed: seed, stream: stream, index: index, salt: variant &+ 1)
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        let body = (0..<bodyLength(forRowBytes: rowBytes)).map { _ in letters[Int(random.next() % UInt64(letters.count))] }
        return Note(id: key(seed: seed, stream: stream, index: index), title: "", body: String(decoding: body, as: UTF8.self),
                    createdAt: created, updatedAt: at)
    }

    /// The body length that makes an encoded note `rowBytes` long (as close as the fixed fields
    /// allow: never negative).
    static func bodyLength(forRowBytes rowBytes: Int) -> Int {
        let stamp = Date(timeIntervalSince1970: 1_790_000_000)
        let blank = Note(id: [UInt8](repeating: 0, count: 16), title: "", body: "", createdAt: stamp, updatedAt: stamp)
        var length = max(0, rowBytes - NotebookNamespace.rowEncoding(of: blank).count)
        for _ in 0..<3 {
            var sized = blank
            sized.body = String(repeating: "a", count: length)
            let excess = NotebookNamespace.rowEncoding(of: sized).count - rowBytes
            guard excess > 0, length > 0 else { break }
            length = max(0, length - excess)
        }
        return length
    }

    /// Runs `request`; returns the rows committed and whether a stop ended it early.
    func write(_ request: Request, stopping: @Sendable () -> Bool) async throws -> (rows: Int, interrupted: Bool) {
        let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        // An edit is stamped a second later than any insert of the same second, so it moves the leaf.
        let later = now.addingTimeInterval(1)
        var done = 0
        while done < request.count {
            guard !stopping() else { return (done, true) }
            let range = (request.first + done)..<(request.first + min(request.count, done + Self.chunk))
            let operation = request.operation
            try await device.write(NotebookNamespace.self) { tx throws(SyncKernelError) in
                for index in range {
                    switch operation {
                    case .insert:
                        try tx.save(Self.note(seed: request.seed, stream: request.stream, index: index, rowBytes: request.rowBytes,
                                              variant: 0, created: now, at: now))
                    case .edit:
                        try tx.save(Self.note(seed: request.seed, stream: request.stream, index: index, rowBytes: request.rowBytes,
                                              variant: request.variant, created: now, at: later))
                    case .delete:
                        try tx.delete(key: Self.key(seed: request.seed, stream: request.stream, index: index))
                    }
                }
            }
            done += range.count
        }
        return (done, false)
    }

    /// The generator of one row's key (`salt` 0) or body.
    private static func generator(seed: UInt64, stream: UInt64, index: Int, salt: UInt64) -> SeededGenerator {
        var mixer = SeededGenerator(seed: seed ^ (stream &* 0xD6E8_FEB8_6659_FD93))
        var row = SeededGenerator(seed: mixer.next() &+ UInt64(index))
        return SeededGenerator(seed: row.next() ^ (salt &* 0x9E37_79B9_7F4A_7C15))
    }
}
