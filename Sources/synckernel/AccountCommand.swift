import Foundation
import SyncEnvelope
import SyncKernel

/// `synckernel account create` and `synckernel account add-device`: an account directory's
/// secret material and its devices' keys and certificates.
///
/// Invariants: every file is written with mode 0600 (directories 0700), whole or not at all,
/// never over an existing one; no key byte is ever printed: `create` prints nothing on standard
/// output, `add-device` prints the new device's id (its public key in hex) and nothing else;
/// errors print the stable code and a fixed detail on standard error.
enum AccountCommand {
    /// The command's help text.
    static let usage = """
        usage: synckernel account create --dir DIR
               synckernel account add-device --dir DIR --name NAME [--valid-days N]
          create      a new account in DIR (made with mode 0700 when missing): a 32-byte random
                      account seed and an Ed25519 issuer key in DIR/account.key (mode 0600)
          add-device  a new device of the account in DIR: its signing and envelope keys in
                      DIR/devices/NAME.key and its certificate, issued by the account and valid N days
                      (default 365), in DIR/devices/NAME.cert (both mode 0600); prints the device id
          NAME is 1 to 64 letters, digits, - or _. Key material is never printed.
          exit status: 0 done, 1 refused (an existing account or device, a key file others may
          read, a malformed file), 64 bad usage
        """

    /// Runs `account` with `arguments` (the subcommand first) and returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let directory: AccountDirectory
        let name: String?
        let validDays: Int
        do throws(UsageError) {
            guard let subcommand = arguments.first, ["create", "add-device"].contains(subcommand) else {
                throw UsageError("the subcommand is create or add-device")
            }
            let adding = subcommand == "add-device"
            let options = try OptionParser(Array(arguments.dropFirst()), options: adding ? ["dir", "name", "valid-days"] : ["dir"],
                                           flags: [])
            guard let path = options.values["dir"], !path.isEmpty else { throw UsageError("--dir DIR is required") }
            directory = AccountDirectory(path: path)
            validDays = try options.int("valid-days", default: 365, range: 1...36_500)
            if adding {
                guard let given = options.values["name"] else { throw UsageError("--name NAME is required") }
                guard AccountDirectory.isValidDeviceName(given) else { throw UsageError("NAME is 1 to 64 letters, digits, - or _") }
                name = given
            } else {
                name = nil
            }
        } catch {
            FileHandle.standardError.write(Data("synckernel account: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        do throws(SyncKernelError) {
            if let name {
                let expiresAt = SystemWallClock().millisecondsSince1970 / 1_000 + Int64(validDays) * 86_400
                let certificate = try directory.addDevice(name: name, expiresAt: expiresAt)
                print(certificate.device.hex)
            } else {
                try directory.create()
                FileHandle.standardError.write(Data("synckernel account: created \(directory.accountFile)\n".utf8))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("synckernel account: \(error)\n".utf8))
            return 1
        }
    }
}
