import Foundation

/// Extrapolates a measured time to a larger size, t ∝ n^k, with k fitted on the two largest
/// sizes measured.
///
/// Invariant: the exponent is never below 1 (no part of a load or an exchange gets cheaper per
/// row as the store grows), so a small first sample dominated by fixed costs cannot make a
/// larger size look cheap; with one sample the growth is taken as linear.
struct Growth {
    /// The fitted exponent.
    let exponent: Double
    /// The largest size measured.
    let rows: Int
    /// The time measured there.
    let seconds: Double

    /// The fit over `samples` (size, seconds), or nil when there are none.
    init?(_ samples: [(rows: Int, seconds: Double)]) {
        let sorted = samples.filter { $0.rows > 0 }.sorted { $0.rows < $1.rows }
        guard let last = sorted.last else { return nil }
        rows = last.rows
        seconds = last.seconds
        guard sorted.count >= 2, let previous = sorted.dropLast().last, previous.rows < last.rows,
              previous.seconds > 0, last.seconds > 0 else {
            exponent = 1
            return
        }
        exponent = max(1, log(last.seconds / previous.seconds) / log(Double(last.rows) / Double(previous.rows)))
    }

    /// The estimated seconds at `target` rows.
    func seconds(at target: Int) -> Double {
        seconds * pow(Double(target) / Double(rows), exponent)
    }
}
