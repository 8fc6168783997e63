import Foundation
import SyncEnvelope
import SyncJoin
import SyncKernel

/// `synckernel account create`, `add-device`, `sign-in-key` and `sign-in-cert`: an account
/// directory's secret material, its devices' keys and certificates, its sign-in verifier and the
/// sign-in credentials a new device joins with.
///
/// Invariants: every file is written with mode 0600 (directories 0700), whole or not at all,
/// never over an existing one; no key byte is ever printed: `create`, `sign-in-key` and
/// `sign-in-cert` print nothing on standard output, `add-device` prints the new device's id (its
/// public key in hex) and nothing else; errors print the stable code and a fixed detail on
/// standard error.
enum AccountCommand {
    /// The command's help text.
    static let usage = """
        usage: synckernel account create --dir DIR
               synckernel account add-device --dir DIR --name NAME [--valid-days N]
               synckernel account sign-in-key --dir DIR
               synckernel account sign-in-cert --dir DIR --out FILE [--valid-for SECONDS]
               synckernel account sign-in-cert --dir DIR --revoke FILE
          create        a new account in DIR (made with mode 0700 when missing): a 32-byte random
                        account seed and an Ed25519 issuer key in DIR/account.key, and the sign-in
                        verifier key every device of the account pins in DIR/sign-in.key (mode 0600)
          add-device    a new device of the account in DIR: its signing and envelope keys in
                        DIR/devices/NAME.key and its certificate, issued by the account and valid N days
                        (default 365), in DIR/devices/NAME.cert (both mode 0600); prints the device id
          sign-in-key   adds the sign-in verifier key to an account made without one (DIR/sign-in.key)
          sign-in-cert  writes to FILE (mode 0600, must not exist) a sign-in credential a new device
                        joins with (`synckernel device --join FILE`): a certificate of the account's
                        sign-in identity valid SECONDS (default 600) and the account's discovery key.
                        It admits one device: once a sibling approved it, every member that learned
                        it refuses it. Whoever holds the file can ask to join until then; a
                        sibling's user still has to approve.
                        --revoke FILE marks the unused credential FILE revoked in DIR/sign-in.ledger:
                        the device running on DIR refuses it from its next check on and tells the
                        members it hears from (refused: another account's, expired or already used)
          NAME is 1 to 64 letters, digits, - or _. Key material is never printed.
          exit status: 0 done, 1 refused (an existing account, device, key or file, a key file
          others may read, a malformed file), 64 bad usage
        """

    /// The subcommands and the options each takes.
    private static let subcommands: [String: Set<String>] = [
        "create": ["dir"], "add-device": ["dir", "name", "valid-days"], "sign-in-key": ["dir"],
        "sign-in-cert": ["dir", "out", "valid-for", "revoke"],
    ]

    /// What a parsed command line asks for.
    private enum Request {
        case create
        case addDevice(name: String, validDays: Int)
        case signInKey
        case signInCertificate(out: String, validFor: Int)
        case revoke(credential: String)
    }

    /// Runs `account` with `arguments` (the subcommand first) and returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        if arguments.contains("--help") || arguments.contains("-h") {
            print(usage)
            return 0
        }
        let directory: AccountDirectory
        let request: Request
        do throws(UsageError) {
            guard let subcommand = arguments.first, let known = subcommands[subcommand] else {
                throw UsageError("the subcommand is create, add-device, sign-in-key or sign-in-cert")
            }
            let options = try OptionParser(Array(arguments.dropFirst()), options: known, flags: [])
            guard let path = options.values["dir"], !path.isEmpty else { throw UsageError("--dir DIR is required") }
            directory = AccountDirectory(path: path)
            switch subcommand {
            case "add-device":
                guard let given = options.values["name"] else { throw UsageError("--name NAME is required") }
                guard AccountDirectory.isValidDeviceName(given) else { throw UsageError("NAME is 1 to 64 letters, digits, - or _") }
                request = .addDevice(name: given, validDays: try options.int("valid-days", default: 365, range: 1...36_500))
            case "sign-in-key":
                request = .signInKey
            case "sign-in-cert" where options.values["revoke"] != nil:
                guard let revoke = options.values["revoke"], !revoke.isEmpty,
                      options.values["out"] == nil, options.values["valid-for"] == nil else {
                    throw UsageError("--revoke FILE takes no --out or --valid-for")
                }
                request = .revoke(credential: revoke)
            case "sign-in-cert":
                guard let out = options.values["out"], !out.isEmpty else { throw UsageError("--out FILE is required") }
                request = .signInCertificate(out: out, validFor: try options.int("valid-for", default: 600, range: 60...2_592_000))
            default:
                request = .create
            }
        } catch {
            FileHandle.standardError.write(Data("synckernel account: \(error.message)\n\(usage)\n".utf8))
            return 64
        }
        do throws(SyncKernelError) {
            let now = SystemWallClock().millisecondsSince1970 / 1_000
            switch request {
            case .create:
                try directory.createWithSignInKey()
                FileHandle.standardError.write(Data("synckernel account: created \(directory.accountFile)\n".utf8))
            case .addDevice(let name, let validDays):
                let certificate = try directory.addDevice(name: name, expiresAt: now + Int64(validDays) * 86_400)
                print(certificate.device.hex)
            case .signInKey:
                try directory.addSignInKey()
                FileHandle.standardError.write(Data("synckernel account: created \(directory.signInKeyFile)\n".utf8))
            case .signInCertificate(let out, let validFor):
                try directory.signInCredential(expiresAt: now + Int64(validFor)).write(to: out)
                FileHandle.standardError.write(Data("synckernel account: wrote a sign-in credential valid \(validFor) s\n".utf8))
            case .revoke(let path):
                let credential = try SignInCredential.read(from: path)
                try directory.revokeSignInCredential(credential, now: now * 1_000)
                FileHandle.standardError.write(Data("synckernel account: revoked the sign-in credential \(credential.id?.description ?? "")\n".utf8))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("synckernel account: \(error)\n".utf8))
            return 1
        }
    }
}
