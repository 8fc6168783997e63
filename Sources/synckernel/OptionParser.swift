/// A small `--name value` option parser for the CLI's commands.
///
/// Invariant: every option given is known and every value parses, or `parse` throws a
/// `UsageError` naming the option; nothing is ignored silently. An option given more than once
/// keeps its last value in `values` and every value, in order, in `lists`.
struct OptionParser {
    private(set) var values: [String: String] = [:]
    private(set) var lists: [String: [String]] = [:]
    private(set) var flags: Set<String> = []

    /// Parses `arguments` against the known value options and flags.
    init(_ arguments: [String], options: Set<String>, flags knownFlags: Set<String>) throws(UsageError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            guard argument.hasPrefix("--") else { throw UsageError("unexpected argument \(argument)") }
            let name = String(argument.dropFirst(2))
            if knownFlags.contains(name) {
                flags.insert(name)
                index += 1
            } else if options.contains(name) {
                guard index + 1 < arguments.count else { throw UsageError("--\(name) needs a value") }
                values[name] = arguments[index + 1]
                lists[name, default: []].append(arguments[index + 1])
                index += 2
            } else {
                throw UsageError("unknown option --\(name)")
            }
        }
    }

    /// The integer value of `name`, or `fallback` when absent.
    func int(_ name: String, default fallback: Int, range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let text = values[name] else { return fallback }
        guard let value = Int(text), range.contains(value) else {
            throw UsageError("--\(name) must be an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// The decimal value of `name`, or `fallback` when absent.
    func double(_ name: String, default fallback: Double, range: ClosedRange<Double>) throws(UsageError) -> Double {
        guard let text = values[name] else { return fallback }
        guard let value = Double(text), range.contains(value) else {
            throw UsageError("--\(name) must be a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }
}

/// A command-line mistake, reported with exit code 64.
struct UsageError: Error {
    let message: String

    init(_ message: String) {
        self.message = message
    }
}
