import Foundation
import SyncKernel

/// The small text file beside a device's store (`SyncDeviceConfiguration.siblingsPath`) that
/// records its siblings' statuses, so a tool reading the store from disk shows them too.
///
///     synckernel-siblings 1
///     <device id, 64 hex digits> <last round or -> <last seen or -> <in sync: 0 or 1>
///
/// Invariants: written whole through a temporary file and a rename (a reader sees the old or the
/// new file, never a mix), mode 0600; read with a bound (`maxBytes`, `maxSiblings`) and strictly:
/// a file that is not exactly this format reads as no siblings (`nil`), never as wrong ones. It
/// holds no key material and no row contents: device ids are public keys.
enum SiblingLog {
    /// The first line.
    static let header = "synckernel-siblings 1"
    /// The largest file read.
    static let maxBytes = 1 << 20
    /// The most siblings kept.
    static let maxSiblings = 4_096

    /// The file's text for `siblings`.
    static func encode(_ siblings: [SiblingStatus]) -> String {
        var lines = [header]
        for sibling in siblings.prefix(maxSiblings) {
            lines.append("\(sibling.device.hex) \(sibling.lastRound.map(String.init) ?? "-") "
                         + "\(sibling.lastSeen.map(String.init) ?? "-") \(sibling.inSync ? 1 : 0)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The siblings in `text`, or nil when it is not the format.
    static func decode(_ text: String) -> [SiblingStatus]? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.first == Substring(header), lines.last == "" else { return nil }
        lines.removeFirst()
        lines.removeLast()
        guard lines.count <= maxSiblings else { return nil }
        var siblings: [SiblingStatus] = []
        for line in lines {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 4, fields[0].utf8.count == 64, let key = Hex.decode(String(fields[0])),
                  let device = try? DeviceID(publicKey: key), fields[3] == "0" || fields[3] == "1",
                  let lastRound = time(fields[1]), let lastSeen = time(fields[2]) else { return nil }
            siblings.append(SiblingStatus(device: device, lastRound: lastRound, lastSeen: lastSeen,
                                          inSync: fields[3] == "1"))
        }
        return siblings
    }

    /// A time field: `-` for none (`.some(nil)`), or a non-negative decimal of at most 19 digits;
    /// nil when it is neither.
    private static func time(_ field: Substring) -> Int64?? {
        if field == "-" { return .some(nil) }
        guard (1...19).contains(field.utf8.count), field.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let value = Int64(field) else { return nil }
        return .some(value)
    }

    /// The siblings recorded at `path`; nil when there is no file or it does not read.
    static func read(_ path: String) -> [SiblingStatus]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: maxBytes + 1), data.count <= maxBytes,
              let text = String(data: data, encoding: .utf8) else { return nil }
        return decode(text)
    }

    /// Replaces the file at `path` with `siblings`; whether it was written.
    @discardableResult
    static func write(_ siblings: [SiblingStatus], to path: String) -> Bool {
        let temporary = path + ".new"
        unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return false }
        let bytes = Array(encode(siblings).utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
