import CSodium
import Foundation

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
