import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `synckernel bench --decode-memory`: what decoding costs in memory per input byte, for each
/// `DecodeMemoryShape`, each decoded in a fresh child process.
///
/// Invariant: a child builds its input, returns freed memory to the system (`malloc_trim`),
/// resets its peak resident size (`/proc/self/clear_refs`), reads its resident size, decodes
/// once and reads its peak; the figure is peak minus that baseline, so it holds what decoding
/// added on top of the input and nothing the input's construction left behind.
enum DecodeMemoryBench {
    /// Runs every shape in a child process at about `mebibytes` MiB of input; returns the exit code.
    static func run(mebibytes: Int, only: String?) -> Int32 {
        let shapes = DecodeMemoryShape.allCases.filter { only == nil || $0.rawValue == only }
        guard !shapes.isEmpty else {
            FileHandle.standardError.write(Data("synckernel bench: no shape named \(only ?? "")\n".utf8))
            return 64
        }
        print("shape                decoder                input_bytes    peak_bytes  ratio  seconds  outcome")
        for shape in shapes {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/proc/self/exe")
            process.arguments = ["bench", "--decode-memory-shape", shape.rawValue, "--decode-memory-mib", String(mebibytes)]
            let pipe = Pipe()
            process.standardOutput = pipe
            do {
                try process.run()
            } catch {
                FileHandle.standardError.write(Data("synckernel bench: cannot start a child: \(error)\n".utf8))
                return 2
            }
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let fields = output.split(separator: " ").map(String.init)
            guard process.terminationStatus == 0, fields.count == 4, let input = Double(fields[0]), let peak = Double(fields[1]) else {
                print("\(pad(shape.rawValue, 20)) \(pad(shape.decoder, 22)) child failed (status \(process.terminationStatus))")
                continue
            }
            let ratio = String(format: "%.2f", peak / max(input, 1))
            print("\(pad(shape.rawValue, 20)) \(pad(shape.decoder, 22)) \(pad(fields[0], 12, right: true)) "
                  + "\(pad(fields[1], 13, right: true)) \(pad(ratio, 6, right: true)) \(pad(fields[2], 8, right: true))  "
                  + fields[3].trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return 0
    }

    /// The child's half: decodes one shape and prints `input peak seconds outcome`.
    static func child(shape name: String, mebibytes: Int) -> Int32 {
        guard let shape = DecodeMemoryShape(rawValue: name) else { return 64 }
        let input = shape.input(bytes: mebibytes << 20)
        trimHeap()
        guard let clear = FileHandle(forWritingAtPath: "/proc/self/clear_refs") else { return 2 }
        clear.write(Data("5".utf8))
        try? clear.close()
        let baseline = statusKilobytes("VmRSS")
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = shape.decode(input)
        let elapsed = clock.now - start
        let peak = statusKilobytes("VmHWM")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("\(input.count) \(max(0, peak - baseline) * 1024) \(String(format: "%.3f", seconds)) \(outcome)")
        return 0
    }

    /// Returns the heap's free memory to the system (glibc's `malloc_trim`, looked up at run time
    /// since the C module does not export `malloc.h`).
    private static func trimHeap() {
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        let trim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        _ = trim(0)
    }

    /// A `kB` line of `/proc/self/status`, or 0.
    private static func statusKilobytes(_ name: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    private static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        let space = String(repeating: " ", count: max(0, width - text.count))
        return right ? space + text : text + space
    }
}
