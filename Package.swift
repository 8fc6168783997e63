// swift-tools-version:6.0
import Foundation
import PackageDescription

let package = Package(
    name: "SyncKernel",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SyncKernel", targets: ["SyncKernel"]),
        .library(name: "NotebookNamespace", targets: ["NotebookNamespace"]),
        .library(name: "MessagesNamespace", targets: ["MessagesNamespace"]),
        .library(name: "MemoryNamespace", targets: ["MemoryNamespace"]),
        .library(name: "ContactsNamespace", targets: ["ContactsNamespace"]),
        .library(name: "SettingsNamespace", targets: ["SettingsNamespace"]),
        .library(name: "OtherNamespaces", targets: ["OtherNamespaces"]),
        .library(name: "SyncKernelSimulator", targets: ["SyncKernelSimulator"]),
        .library(name: "SyncKernelTestKit", targets: ["SyncKernelTestKit"]),
        .library(name: "CloudAnchor", targets: ["CloudAnchor"]),
        .library(name: "NatsRelay", targets: ["NatsRelay"]),
        .executable(name: "synckernel", targets: ["synckernel"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CNats", path: "Sources/CNats", pkgConfig: "libnats",
                       providers: [.apt(["libnats-dev"])]),
        .target(name: "SQLiteStore", dependencies: ["CSQLite"], path: "Sources/SQLiteStore"),
        .target(name: "SyncKernel", dependencies: ["SQLiteStore", "CSodium"], path: "Sources/SyncKernel"),
        .target(name: "SyncKernelSimulator", dependencies: ["SyncKernel"], path: "Sources/SyncKernelSimulator"),
        .target(name: "NotebookNamespace", dependencies: ["SyncKernel"], path: "Sources/Namespaces/Notebook"),
        .target(name: "MessagesNamespace", dependencies: ["SyncKernel"], path: "Sources/Namespaces/Messages"),
        .target(name: "MemoryNamespace", dependencies: ["SyncKernel"], path: "Sources/Namespaces/Memory"),
        .target(name: "ContactsNamespace", dependencies: ["SyncKernel"], path: "Sources/Namespaces/Contacts"),
        .target(name: "SettingsNamespace", dependencies: ["SyncKernel"], path: "Sources/Namespaces/Settings"),
        .target(name: "OtherNamespaces", dependencies: ["SyncKernel"], path: "Sources/Namespaces/Other"),
        .target(name: "SyncKernelTestKit", dependencies: ["SyncKernel", "SyncKernelSimulator"], path: "Sources/SyncKernelTestKit"),
        .target(name: "FleetSimulation", dependencies: ["SyncKernel", "SyncKernelSimulator", "NotebookNamespace",
                                                        "MessagesNamespace", "MemoryNamespace", "ContactsNamespace",
                                                        "SettingsNamespace", "OtherNamespaces"],
                path: "Sources/FleetSimulation"),
        .target(name: "KernelBench", dependencies: ["SQLiteStore", "SyncKernel", "SyncKernelSimulator"], path: "Sources/KernelBench"),
        .executableTarget(name: "synckernel",
                          dependencies: ["SyncKernel", "SyncKernelSimulator", "NotebookNamespace", "FleetSimulation",
                                         "KernelBench", "CloudAnchor"],
                          path: "Sources/synckernel"),
        .executableTarget(name: "synckernel-crashprobe", dependencies: ["SyncKernel", "NotebookNamespace"],
                          path: "Sources/CrashProbe"),
        .testTarget(name: "SQLiteStoreTests", dependencies: ["SQLiteStore"], path: "Tests/SQLiteStoreTests"),
        .testTarget(name: "SyncKernelTests", dependencies: ["SyncKernel", "SyncKernelSimulator", "NotebookNamespace",
                                                            "FleetSimulation", "KernelBench", "CSQLite"],
                    path: "Tests/SyncKernelTests", exclude: ["Fixtures"]),
        .testTarget(name: "NamespacesTests", dependencies: ["SyncKernel", "SyncKernelSimulator", "NotebookNamespace",
                                                            "MessagesNamespace", "MemoryNamespace", "ContactsNamespace",
                                                            "SettingsNamespace", "OtherNamespaces"],
                    path: "Tests/NamespacesTests", exclude: ["Fixtures"]),
        .testTarget(name: "ConformanceTests", dependencies: ["SyncKernel", "SyncKernelTestKit", "NotebookNamespace",
                                                             "MessagesNamespace", "MemoryNamespace", "ContactsNamespace",
                                                             "SettingsNamespace", "OtherNamespaces"],
                    path: "Tests/ConformanceTests"),
        .testTarget(name: "NotebookNamespaceTests", dependencies: ["SyncKernel", "NotebookNamespace"],
                    path: "Tests/NotebookNamespaceTests", exclude: ["Fixtures"]),
        .target(name: "CloudAnchor", dependencies: ["SQLiteStore", "CSodium"], path: "Sources/CloudAnchor"),
        .target(name: "SyncKernelFuzz", dependencies: ["SyncKernel", "SyncKernelSimulator", "SyncKernelTestKit",
                                                       "NotebookNamespace", "MessagesNamespace", "MemoryNamespace",
                                                       "ContactsNamespace", "SettingsNamespace", "OtherNamespaces"],
                path: "Sources/SyncKernelFuzz"),
        .testTarget(name: "FuzzTargetTests", dependencies: ["SyncKernel", "SyncKernelFuzz"], path: "Tests/FuzzTargetTests"),
        .testTarget(name: "CloudAnchorTests", dependencies: ["CloudAnchor", "SyncKernel", "SyncKernelSimulator", "TestServers"],
                    path: "Tests/CloudAnchorTests"),
        .target(name: "NatsRelay", dependencies: ["SyncKernel", "CNats"], path: "Sources/NatsRelay"),
        .target(name: "TestServers", path: "Sources/TestServers"),
        .testTarget(name: "NatsRelayTests", dependencies: ["NatsRelay", "SyncKernel", "NotebookNamespace", "TestServers"],
                    path: "Tests/NatsRelayTests"),
    ],
    swiftLanguageModes: [.v6]
)

// The libFuzzer executable links libFuzzer, which only `-sanitize=fuzzer` provides: it is declared
// only when `make fuzz` builds with `SYNCKERNEL_FUZZ=1` (into its own build path), so `swift build`
// and `make test` never need libFuzzer.
if ProcessInfo.processInfo.environment["SYNCKERNEL_FUZZ"] == "1" {
    package.targets += [
        .target(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        .executableTarget(name: "synckernel-fuzz", dependencies: ["SyncKernelFuzz", "CLibFuzzer"],
                          path: "Sources/SyncKernelFuzzer"),
    ]
    package.products.append(.executable(name: "synckernel-fuzz", targets: ["synckernel-fuzz"]))
}
