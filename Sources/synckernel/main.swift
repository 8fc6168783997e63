import Foundation

/// `synckernel`: the command-line front of the kernel and the cloud anchor.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: synckernel <command> [options]
      simulate   run a fleet of devices over the in-process relay until it converges
                 --devices N --rows R --diff D --latency-ms L --seed S [--loss P] [--json]
                 [--namespaces all|NAME,NAME]   (default: the notebook alone)
      bench      compare whole-bucket and listing responses, and maintained and rescanned digests
                 [--rows R] [--seed S]   (build with -c release: `make bench`)
      backup     back a folder up to a cloud location (see `synckernel backup --help`)
      restore    restore a folder from a cloud location (see `synckernel restore --help`)
    """

switch arguments.first {
case "simulate":
    exit(SimulateCommand.run(Array(arguments.dropFirst())))
case "bench":
    exit(BenchCommand.run(Array(arguments.dropFirst())))
case "backup":
    exit(await CloudCommands.backup(Array(arguments.dropFirst())))
case "restore":
    exit(await CloudCommands.restore(Array(arguments.dropFirst())))
case "help", "-h", "--help":
    print(usage)
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}
