#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import SyncEnvelope
import SyncKernel

/// Writing the account directory of a device that was granted an account: all the files or none.
///
/// Invariants: the directory at `path` is written whole or not at all: every file is written
/// (through `KeyFile`, mode 0600, synced) into the staging folder `PATH.joining` beside it, the
/// staging folder is checked to open as the device's keys and roster, and only then renamed to
/// `path` in one `rename(2)`, which fails unless `path` is missing or an empty folder; on any
/// failure the staging folder is removed and `path` is untouched. A crash leaves at most the
/// staging folder, which the next install removes first.
extension AccountDirectory {
    /// Whether the directory is free for a device to join into: missing, or an empty folder.
    public var isFreeForJoin: Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT }
        guard (info.st_mode & S_IFMT) == S_IFDIR, let entries = try? FileManager.default.contentsOfDirectory(atPath: path) else {
            return false
        }
        return entries.isEmpty
    }

    /// Writes the account directory `grant` describes, with the device `name` holding `keys`:
    /// `account.key`, `sign-in.key`, `devices/NAME.key`, `devices/NAME.cert` and each sibling's
    /// `devices/SIBLING.cert`. `keyFileUnavailable` when the directory is not free (or a file
    /// cannot be written), `invalidCertificate` when the files do not open as the device's keys.
    package func install(_ grant: SignInGrant, name: String, keys: DeviceKeys) throws(SyncKernelError) {
        guard Self.isValidDeviceName(name) else {
            throw SyncKernelError(.keyFileUnavailable, "a device name is 1 to 64 letters, digits, - or _")
        }
        let target = Self.trimmed(path)
        guard AccountDirectory(path: target).isFreeForJoin else {
            throw SyncKernelError(.keyFileUnavailable, "the account directory exists and is not empty")
        }
        let staging = AccountDirectory(path: target + ".joining")
        Self.remove(staging.path)
        do throws(SyncKernelError) {
            try KeyFile.makeDirectory(staging.path)
            try KeyFile.create(grant.account.encoded(), at: staging.accountFile)
            try KeyFile.create(grant.signInKey.encoded(), at: staging.signInKeyFile)
            try KeyFile.makeDirectory(staging.devicesFolder)
            try KeyFile.create(keys.encoded(), at: staging.devicesFolder + "/" + name + ".key")
            try KeyFile.create(grant.certificate.encoded(), at: staging.devicesFolder + "/" + name + ".cert")
            for (sibling, certificate) in grant.siblings.sorted(by: { $0.key < $1.key }) {
                try staging.addSiblingCertificate(certificate, name: sibling)
            }
            let opened = try staging.envelopeKeys(name: name)
            _ = try staging.roster(for: opened)
            guard rename(staging.path, target) == 0 else {
                throw SyncKernelError(.keyFileUnavailable, "the account directory exists and is not empty")
            }
        } catch {
            Self.remove(staging.path)
            throw error
        }
        Self.syncParent(of: target)
    }

    /// `path` without trailing slashes (so the staging folder sits beside it, not inside).
    private static func trimmed(_ path: String) -> String {
        var trimmed = path
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        return trimmed
    }

    /// Removes the folder `path` and everything in it, if it exists.
    private static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Syncs the folder holding `path`, so the rename survives a power loss.
    private static func syncParent(of path: String) {
        let parent = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let descriptor = open(parent.isEmpty ? "/" : parent, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }
}
