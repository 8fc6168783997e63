import Foundation
import SyncKernel
import SyncKernelSimulator

/// Generated rows of every namespace whose rows stand on their own (ten of the thirteen: not
/// memory, messages or peer devices, whose rows refer to others), for demos and process tests
/// that need a store holding rows across namespaces (`synckernel device`'s `demo-fill N`).
///
/// Invariant: the rows are the simulator's own workload rows, so every one is valid for its
/// namespace; every random choice comes from the generator passed in.
package enum DemoRows {
    /// One namespace and a maker of its rows (each a `namespace.Row`).
    package struct Maker: Sendable {
        /// The namespace.
        package let namespace: any SyncNamespace.Type
        /// Makes one new row of it.
        package let make: @Sendable (inout SeededGenerator, Date) -> any Sendable
    }

    /// The namespaces with a maker, in name order.
    package static let makers: [Maker] = Workloads.all.compactMap { workload in
        workload.make.map { Maker(namespace: workload.namespace, make: $0) }
    }
}
