/// A failed step of `synckernel bench-e2e`, with what went wrong.
struct E2EError: Error, CustomStringConvertible {
    /// The sentence printed.
    let description: String

    /// An error saying `description`.
    init(_ description: String) {
        self.description = description
    }
}
