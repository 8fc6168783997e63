import Foundation

/// `synckernel`: the command-line front of the kernel and the cloud anchor.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: synckernel <command> [options]
      simulate   run a fleet of devices over the in-process relay until it converges
                 --devices N --rows R --diff D --latency-ms L --seed S [--loss P] [--json]
                 [--namespaces all|NAME,NAME]   (default: the notebook alone)
      bench      reconcile two replicas and measure bytes, round trips, CPU, write overhead and memory
                 --rows N --diff D [--mode spec|fast] [--seed S] [--row-bytes B] [--json]
                 --grid [--json] [--csv PATH]   (both modes over N x D; `make bench-grid`)
                 no --rows/--grid: the earlier side-by-side comparisons [--compare-rows R] [--seed S] (`make bench`)
                 fast = the sketch exchange over the persisted structure; see `synckernel bench --help`
      soak       seeded faulty fleets (crashes, partitions, loss, skewed clocks) checked for convergence,
                 against an oracle store and for storm trips; prints the seed of every failure
                 [--fleets N] [--first-seed F] [--json]   (default 1,000 fleets; `make soak`)
                 --seed S [--json]   replay one fleet (`make soak SEED=S`)
                 [--directory DIR]   where the fleets' SQLite files go (default: the temporary folder)
      backup     back a folder up to a cloud location (see `synckernel backup --help`)
      restore    restore a folder from a cloud location (see `synckernel restore --help`)
      bench-absorb  a sibling's snapshot of N notebook rows sealed, stored, fetched and absorbed, step by step
                 --rows N [--stores folder,jetstream] [--nats URL] [--json]   (see `synckernel bench-absorb --help`)
      check      check a store's integrity: SQLite's own check, structures, every row, the quarantine
                 --db PATH [--repair] [--json]   (exit 0 healthy, 1 damage, 2 not a store; see `synckernel check --help`)
      account    an account's keys and its devices' keys and certificates, in files of mode 0600
                 create --dir DIR | add-device --dir DIR --name NAME [--valid-days N]   (prints the device id)
    """

switch arguments.first {
case "simulate":
    exit(SimulateCommand.run(Array(arguments.dropFirst())))
case "bench":
    exit(BenchCommand.run(Array(arguments.dropFirst())))
case "soak":
    exit(SoakCommand.run(Array(arguments.dropFirst())))
case "backup":
    exit(await CloudCommands.backup(Array(arguments.dropFirst())))
case "restore":
    exit(await CloudCommands.restore(Array(arguments.dropFirst())))
case "bench-absorb":
    exit(await AbsorbBenchCommand.run(Array(arguments.dropFirst())))
case "check":
    exit(CheckCommand.run(Array(arguments.dropFirst())))
case "account":
    exit(AccountCommand.run(Array(arguments.dropFirst())))
case "help", "-h", "--help":
    print(usage)
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}
