import Foundation

/// `synckernel`: the command-line front of the kernel and the cloud anchor.
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: synckernel <command> [options]
      simulate   run a fleet of devices over the in-process relay until it converges
                 --devices N --rows R --diff D --latency-ms L --seed S [--loss P] [--json]
                 [--namespaces all|NAME,NAME]   (default: the notebook alone)
                 [--resolve-conflicts]   device 0 resolves the conflicts left, as an app would
      bench      reconcile two replicas and measure bytes, round trips, CPU, write overhead and memory
                 --rows N --diff D [--mode spec|fast] [--seed S] [--row-bytes B] [--json]
                 --grid [--json] [--csv PATH]   (both modes over N x D; `make bench-grid`)
                 no --rows/--grid: the earlier side-by-side comparisons [--compare-rows R] [--seed S] (`make bench`)
                 fast = the sketch exchange over the persisted structure; see `synckernel bench --help`
      bench-diff  time `diff` on two equal stores of N rows and after D rows of one are edited
                 --rows N [--diff D] [--full-scan] [--directory DIR] [--json]   (see `synckernel bench-diff --help`)
      soak       seeded faulty fleets (crashes, partitions, loss, skewed clocks) checked for convergence,
                 against an oracle store and for storm trips; prints the seed of every failure
                 [--fleets N] [--first-seed F] [--json]   (default 1,000 fleets; `make soak`)
                 --seed S [--json]   replay one fleet (`make soak SEED=S`)
                 [--directory DIR]   where the fleets' SQLite files go (default: the temporary folder)
      backup     back a folder up to a cloud location (see `synckernel backup --help`)
      restore    restore a folder from a cloud location (see `synckernel restore --help`)
      cloud-bench  count the WebDAV requests of directory backups of a generated tree (`make cloud-bench`)
                 --webdav URL [--files N] [--folders F] [--finite-depth]
      bench-absorb  a sibling's snapshot of N notebook rows sealed, stored, fetched and absorbed, step by step
                 --rows N [--stores folder,jetstream] [--nats URL] [--json]   (see `synckernel bench-absorb --help`)
      bench-flood  what junk envelopes cost a device process per drop reason, and a sync during a junk flood
                 [--envelopes N] [--rows N] [--rate N] [--json]   (`make bench-flood`; see `synckernel bench-flood --help`)
      bench-write  local writes through a running device and a bare store: rows a second in one transaction,
                 single-write latency   [--rows N] [--singles M] [--json]   (`make bench-write`; see `synckernel bench-write --help`)
      bench-e2e  two device processes over a nats-server: bytes through the relay / changed row bytes, messages,
                 wall time, CPU, round trips per point, beside the in-memory bench and negentropy
                 [--rows N,...] [--diff D,...] [--row-bytes B,...] [--sides one|both] [--restart none|a|b] [--grid]
                 (`make bench-e2e`; see `synckernel bench-e2e --help`)
      check      check a store's integrity: SQLite's own check, structures, every row, the quarantine
                 --db PATH [--repair] [--json]   (exit 0 healthy, 1 damage, 2 not a store; see `synckernel check --help`)
      inspect    what a store holds for one key: row, versions, vectors, tombstones, RowClock stamp (read-only)
                 --db PATH --namespace NAME --key HEX [--json]   (exit 0 shown, 1 not held, 2 not a store)
      diff       the namespaces and keys where two stores differ, with both sides' leaves (read-only)
                 --db A --db B [--json]   (exit 0 equal, 1 differ, 2 not a store, 64 bad usage)
      account    an account's keys and its devices' keys and certificates, in files of mode 0600
                 create --dir DIR | add-device --dir DIR --name NAME [--valid-days N]   (prints the device id)
                 sign-in-key --dir DIR | sign-in-cert --dir DIR --out FILE [--valid-for SECONDS]   (a new device's credential)
      device     run one device over a NATS relay until SIGINT, SIGTERM or `quit` (see `synckernel device --help`)
                 --account DIR --name NAME --db PATH --relay nats://HOST:PORT[,...] [--events json]
      status     a store's device, namespaces (rows, root) and siblings, readable while a device runs on it
                 --db PATH [--json]   (exit 0, 2 not a store, 64 bad usage)
    """

switch arguments.first {
case "simulate":
    exit(SimulateCommand.run(Array(arguments.dropFirst())))
case "bench":
    exit(BenchCommand.run(Array(arguments.dropFirst())))
case "bench-diff":
    exit(BenchDiffCommand.run(Array(arguments.dropFirst())))
case "soak":
    exit(SoakCommand.run(Array(arguments.dropFirst())))
case "backup":
    exit(await CloudCommands.backup(Array(arguments.dropFirst())))
case "restore":
    exit(await CloudCommands.restore(Array(arguments.dropFirst())))
case "cloud-bench":
    exit(await CloudBenchCommand.run(Array(arguments.dropFirst())))
case "bench-absorb":
    exit(await AbsorbBenchCommand.run(Array(arguments.dropFirst())))
case "bench-flood":
    exit(await FloodBenchCommand.run(Array(arguments.dropFirst())))
case "bench-write":
    if let status = WriteBenchCommand.runWithoutDevice(Array(arguments.dropFirst())) { exit(status) }
    exit(await WriteBenchCommand.run(Array(arguments.dropFirst())))
case "bench-e2e":
    exit(await E2EBenchCommand.run(Array(arguments.dropFirst())))
case "check":
    exit(CheckCommand.run(Array(arguments.dropFirst())))
case "inspect":
    exit(InspectCommand.run(Array(arguments.dropFirst())))
case "diff":
    exit(DiffCommand.run(Array(arguments.dropFirst())))
case "account":
    exit(AccountCommand.run(Array(arguments.dropFirst())))
case "device":
    DeviceCommand.holdStopSignals()
    exit(await DeviceCommand.run(Array(arguments.dropFirst())))
case "status":
    exit(StatusCommand.run(Array(arguments.dropFirst())))
case "help", "-h", "--help":
    print(usage)
default:
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(64)
}
