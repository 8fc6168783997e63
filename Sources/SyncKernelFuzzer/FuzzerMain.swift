import CLibFuzzer
import Foundation
import SyncKernelFuzz

/// `synckernel-fuzz`: the libFuzzer driver over the `FuzzTarget` entry functions, built only by
/// `make fuzz` (with `-sanitize=fuzzer,address`).
///
/// `synckernel-fuzz TARGET [libFuzzer flags] [corpus folders or input files]` runs libFuzzer on
/// `TARGET` (cbor, frame, row, replica, envelope); given files instead of folders it runs each once, which
/// replays a crash file. `synckernel-fuzz --make-corpus DIR` writes the seed corpus of every
/// target under `DIR/<target>/`. Invariant: an input that breaks a target's checks aborts the
/// process after printing the violation, so libFuzzer saves it as a crash file; a typed refusal
/// never does.
@main
enum FuzzerMain {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else { usage() }
        if arguments[1] == "--make-corpus" {
            guard arguments.count == 3 else { usage() }
            makeCorpus(in: arguments[2])
            return
        }
        guard let target = FuzzTarget(rawValue: arguments[1]) else { usage() }
        let callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32 = switch target {
        case .cbor: { data, size in FuzzerMain.run(.cbor, data, size) }
        case .frame: { data, size in FuzzerMain.run(.frame, data, size) }
        case .row: { data, size in FuzzerMain.run(.row, data, size) }
        case .replica: { data, size in FuzzerMain.run(.replica, data, size) }
        case .envelope: { data, size in FuzzerMain.run(.envelope, data, size) }
        }
        let driverArguments = [arguments[0]] + arguments.dropFirst(2)
        var argc = Int32(driverArguments.count)
        var argv = driverArguments.map { strdup($0) } + [nil]
        let status = argv.withUnsafeMutableBufferPointer { buffer in
            var base = buffer.baseAddress
            return LLVMFuzzerRunDriver(&argc, &base, callback)
        }
        exit(status)
    }

    /// One libFuzzer input: runs the target, aborting with the violation printed if a check broke.
    private static func run(_ target: FuzzTarget, _ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        do {
            _ = try target.run(bytes)
        } catch {
            FileHandle.standardError.write(Data("synckernel-fuzz \(target.rawValue): \(error.description)\n".utf8))
            abort()
        }
        return 0
    }

    /// Writes every target's seeds as `DIR/<target>/seed-NNNN` and prints how many.
    private static func makeCorpus(in directory: String) {
        for target in FuzzTarget.allCases {
            let folder = URL(fileURLWithPath: directory).appendingPathComponent(target.rawValue)
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                let seeds = try FuzzCorpus.seeds(for: target)
                for (index, seed) in seeds.enumerated() {
                    try Data(seed).write(to: folder.appendingPathComponent(String(format: "seed-%04d", index)))
                }
                print("corpus \(target.rawValue): \(seeds.count) seeds in \(folder.path)")
            } catch {
                FileHandle.standardError.write(Data("synckernel-fuzz: cannot write the \(target.rawValue) corpus: \(error)\n".utf8))
                exit(1)
            }
        }
    }

    private static func usage() -> Never {
        let targets = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
        FileHandle.standardError.write(Data("usage: synckernel-fuzz \(targets) [libFuzzer flags] [corpus dirs or files]\n       synckernel-fuzz --make-corpus DIR\n".utf8))
        exit(2)
    }
}
