import CSodium
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// SHA-256 content hashes as lowercase hex, computed with libsodium.
///
/// Invariant: the same bytes always give the same 64-character string; `sodium_init()` runs
/// once per process before the first hash.
public enum ContentHash {
    private static let ready: Bool = sodium_init() >= 0

    /// The hash of `data`.
    public static func sha256(_ data: Data) -> String {
        precondition(ready, "libsodium failed to initialise")
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        data.withUnsafeBytes { bytes in
            let base = bytes.bindMemory(to: UInt8.self).baseAddress
            _ = crypto_hash_sha256(&digest, base, UInt64(bytes.count))
        }
        return hex(digest)
    }

    /// The hash of the file at `url`, read in chunks; throws `CloudError.localIO` when unreadable.
    public static func sha256(fileAt url: URL) throws(CloudError) -> String {
        precondition(ready, "libsodium failed to initialise")
        guard let handle = try? FileHandle(forReadingFrom: url) else { throw .localIO }
        defer { try? handle.close() }
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        while true {
            let chunk: Data
            do {
                chunk = try handle.read(upToCount: 1 << 20) ?? Data()
            } catch {
                throw .localIO
            }
            if chunk.isEmpty { break }
            chunk.withUnsafeBytes { bytes in
                _ = crypto_hash_sha256_update(&state, bytes.bindMemory(to: UInt8.self).baseAddress,
                                              UInt64(bytes.count))
            }
        }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return hex(digest)
    }

    /// The hash of the regular file at `path` and the stamp it had while it was read.
    ///
    /// The file is opened without following a link and without blocking (a FIFO swapped in
    /// cannot hang the read), must be a regular file, and is read in 1 MiB chunks through one
    /// descriptor. Throws `.changedWhileReading` when the bytes read differ from its size or its
    /// stamp (through the descriptor, and at the path) is not the same after the read as before.
    public static func sha256(regularFileAt path: String) throws(FileProblem.Cause) -> (hash: String, stamp: FileStamp) {
        precondition(ready, "libsodium failed to initialise")
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw FileProblem.Cause(errno: errno) }
        defer { close(descriptor) }
        guard let before = FileStamp.of(descriptor: descriptor) else { throw FileProblem.Cause(errno: errno) }
        guard before.isRegularFile else { throw .changedWhileReading }
        var state = crypto_hash_sha256_state()
        crypto_hash_sha256_init(&state)
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            let count = read(descriptor, buffer, chunk)
            if count < 0 {
                if errno == EINTR { continue }
                throw FileProblem.Cause(errno: errno)
            }
            if count == 0 { break }
            total += Int64(count)
            _ = crypto_hash_sha256_update(&state, buffer.assumingMemoryBound(to: UInt8.self), UInt64(count))
        }
        guard total == before.size, FileStamp.of(descriptor: descriptor) == before, FileStamp.of(path: path) == before
        else { throw .changedWhileReading }
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        crypto_hash_sha256_final(&state, &digest)
        return (hex(digest), before)
    }

    private static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
