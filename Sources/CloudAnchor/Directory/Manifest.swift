import Foundation

/// The self-verifying description of a directory backup: every folder, file and link of the
/// snapshot, written as the backup's marker.
///
/// Invariant: entries are unique and sorted by the UTF-8 bytes of their paths; every path is a
/// valid relative path whose every ancestor is a folder entry (so nothing lies below a file or a
/// link); a file carries its size and SHA-256, a link its target verbatim. The encoding is
/// canonical text (one line per entry, paths and targets percent-encoded byte by byte, so names
/// survive exactly, NFC and NFD apart) ending with a line holding the SHA-256 of every byte before
/// it; `init(decoding:)` accepts only such bytes and throws `.manifestDamaged` for anything else
/// (empty, truncated, garbage, a wrong hash, a bad entry), so a damaged manifest is never trusted.
public struct Manifest: Sendable, Hashable {
    /// One entry of the snapshot.
    public enum Entry: Sendable, Hashable {
        /// A folder (empty or not).
        case folder(path: String)
        /// A regular file with its size and SHA-256 (lowercase hex).
        case file(path: String, size: Int64, sha256: String)
        /// A symbolic link and its target, never followed.
        case link(path: String, target: String)

        /// The relative path.
        public var path: String {
            switch self {
            case .folder(let path), .file(let path, _, _), .link(let path, _): path
            }
        }
    }

    /// The first line of every manifest of this format.
    static let header = "cloudanchor-manifest 2"

    /// The entries, sorted by path bytes.
    public let entries: [Entry]

    /// A manifest of `entries` (sorted here); throws `.manifestDamaged` when they break the invariant.
    public init(entries: [Entry]) throws(CloudError) {
        let sorted = entries.sorted { $0.path.bytesPrecede($1.path) }
        try Self.validate(sorted)
        self.entries = sorted
    }

    /// Reads a manifest; throws `.manifestDamaged` unless `data` is exactly what `encoded()` writes.
    public init(decoding data: Data) throws(CloudError) {
        let bytes = [UInt8](data)
        guard bytes.last == 0x0A else { throw .manifestDamaged }
        var lines = bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false)
        guard lines.count >= 2, let footer = lines.popLast() else { throw .manifestDamaged }
        let body = bytes.prefix(bytes.count - footer.count - 1)
        guard String(decoding: footer, as: UTF8.self).bytesEqual("end " + ContentHash.sha256(Data(body))),
              String(decoding: lines.removeFirst(), as: UTF8.self).bytesEqual(Self.header)
        else { throw .manifestDamaged }
        var entries: [Entry] = []
        entries.reserveCapacity(lines.count)
        for line in lines {
            entries.append(try Self.entry(line))
        }
        try Self.validate(entries)
        self.entries = entries
        guard encoded() == data else { throw .manifestDamaged }
    }

    /// The canonical bytes: the header, one line per entry, and the hash line.
    public func encoded() -> Data {
        var text = Self.header + "\n"
        for entry in entries {
            switch entry {
            case .folder(let path): text += "d \(Self.escape(path))\n"
            case .file(let path, let size, let sha256): text += "f \(size) \(sha256) \(Self.escape(path))\n"
            case .link(let path, let target): text += "l \(Self.escape(target)) \(Self.escape(path))\n"
            }
        }
        let body = Data(text.utf8)
        return body + Data("end \(ContentHash.sha256(body))\n".utf8)
    }

    /// The file entries as (path, size, SHA-256), in manifest order.
    public var files: [(path: String, size: Int64, sha256: String)] {
        entries.compactMap { entry in
            if case .file(let path, let size, let sha256) = entry { return (path, size, sha256) }
            return nil
        }
    }

    /// The folder paths, parents before children.
    public var folders: [String] {
        entries.compactMap { entry in
            if case .folder(let path) = entry { return path }
            return nil
        }
    }

    /// The links as (path, target), in manifest order.
    public var links: [(path: String, target: String)] {
        entries.compactMap { entry in
            if case .link(let path, let target) = entry { return (path, target) }
            return nil
        }
    }

    private static func entry(_ line: ArraySlice<UInt8>) throws(CloudError) -> Entry {
        let fields = line.split(separator: 0x20, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        switch (fields.first, fields.count) {
        case ("d", 2):
            return .folder(path: try unescape(fields[1]))
        case ("f", 4):
            guard let size = Int64(fields[1]), size >= 0, String(size) == fields[1] else { throw .manifestDamaged }
            return .file(path: try unescape(fields[3]), size: size, sha256: fields[2])
        case ("l", 3):
            return .link(path: try unescape(fields[2]), target: try unescape(fields[1]))
        default:
            throw .manifestDamaged
        }
    }

    private static func validate(_ entries: [Entry]) throws(CloudError) {
        var folders = Set<ExactPath>()
        var previous: String?
        for entry in entries {
            let components: [String]
            do {
                components = try RemotePath.components(entry.path)
            } catch {
                throw .manifestDamaged
            }
            if let previous, !previous.bytesPrecede(entry.path) { throw .manifestDamaged }
            previous = entry.path
            for depth in 1..<components.count where !folders.contains(ExactPath(components.prefix(depth).joined(separator: "/"))) {
                throw .manifestDamaged
            }
            switch entry {
            case .folder(let path):
                folders.insert(ExactPath(path))
            case .file(_, let size, let sha256):
                guard size >= 0, sha256.utf8.count == 64,
                      sha256.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
                else { throw .manifestDamaged }
            case .link(_, let target):
                guard !target.isEmpty, !target.utf8.contains(0) else { throw .manifestDamaged }
            }
        }
    }

    /// Percent-encodes every byte outside printable ASCII, and `%` itself.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        let digits = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            if byte > 0x20, byte < 0x7F, byte != 0x25 {
                out.append(Character(Unicode.Scalar(byte)))
            } else {
                out.append("%")
                out.append(digits[Int(byte >> 4)])
                out.append(digits[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// Undoes `escape`; throws `.manifestDamaged` for a bad escape or bytes that are not UTF-8.
    static func unescape(_ text: String) throws(CloudError) -> String {
        var bytes: [UInt8] = []
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == 0x25 else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw .manifestDamaged
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self), !decoded.isEmpty else { throw .manifestDamaged }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }
}
