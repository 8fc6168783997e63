/// Order keys for a list that devices reorder apart: a key strictly between any two others can
/// always be made, so a task moves or is inserted by writing its own row only.
///
/// Invariants: a key is a non-empty string of the letters `a` to `z` that does not end in `a`;
/// keys order as strings; `between(_:and:)` returns a key strictly between its bounds (nil: the
/// list's start or end), never one ending in `a`, so there is always room for another.
public enum OrderKey {
    private static let digits = Array("abcdefghijklmnopqrstuvwxyz")

    /// Whether `key` is an order key.
    public static func isValid(_ key: String) -> Bool {
        !key.isEmpty && key.last != "a" && key.allSatisfy { ("a"..."z").contains($0) }
    }

    /// A key after `lower` and before `upper` (nil: no bound); `lower` must precede `upper`.
    public static func between(_ lower: String?, and upper: String?) -> String {
        let low = lower.map(values) ?? []
        let high = upper.map(values)
        return String(midpoint(low, high).map { digits[$0] })
    }

    private static func values(_ key: String) -> [Int] {
        key.compactMap { digits.firstIndex(of: $0) }
    }

    /// Digits of a fraction strictly between `low` and `high` (nil: one) in base 26.
    private static func midpoint(_ low: [Int], _ high: [Int]?) -> [Int] {
        var result: [Int] = []
        var index = 0
        while true {
            let below = index < low.count ? low[index] : 0
            let above = high.map { index < $0.count ? $0[index] : 0 } ?? digits.count
            if below == above {
                result.append(below)
                index += 1
                continue
            }
            let middle = (below + above) / 2
            if middle > below {
                result.append(middle)
                return result
            }
            result.append(below)
            return result + midpoint(Array(low.dropFirst(index + 1)), nil)
        }
    }
}
