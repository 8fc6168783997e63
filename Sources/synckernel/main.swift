// TEMPORARY dispatcher for branch cloud-anchor: the kernel branch owns this file and replaces it
// at merge with the real dispatcher, which calls CloudCommands.backup and CloudCommands.restore.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let code: Int32
switch arguments.first {
case "backup":
    code = await CloudCommands.backup(Array(arguments.dropFirst()))
case "restore":
    code = await CloudCommands.restore(Array(arguments.dropFirst()))
default:
    FileHandle.standardError.write(Data((CloudCommands.usage + "\n").utf8))
    code = CloudCommands.ExitCode.usage.rawValue
}
exit(code)
