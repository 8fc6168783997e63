// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SyncKernel",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SyncKernel", targets: ["SyncKernel"]),
        .library(name: "NotebookNamespace", targets: ["NotebookNamespace"]),
        .executable(name: "synckernel", targets: ["synckernel"]),
        .library(name: "CloudAnchor", targets: ["CloudAnchor"]),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CSodium", path: "Sources/CSodium", pkgConfig: "libsodium",
                       providers: [.apt(["libsodium-dev"])]),
        .target(name: "SyncKernel", dependencies: ["CSQLite", "CSodium"], path: "Sources/SyncKernel"),
        .target(name: "NotebookNamespace", dependencies: ["SyncKernel"], path: "Sources/Namespaces/Notebook"),
        .executableTarget(name: "synckernel",
                          dependencies: ["SyncKernel", "NotebookNamespace", "CloudAnchor"],
                          path: "Sources/synckernel"),
        .testTarget(name: "SyncKernelTests", dependencies: ["SyncKernel", "NotebookNamespace"],
                    path: "Tests/SyncKernelTests"),
        .testTarget(name: "NotebookNamespaceTests", dependencies: ["SyncKernel", "NotebookNamespace"],
                    path: "Tests/NotebookNamespaceTests"),
        .target(name: "CloudAnchor", dependencies: ["CSQLite", "CSodium"], path: "Sources/CloudAnchor"),
        .testTarget(name: "CloudAnchorTests", dependencies: ["CloudAnchor"], path: "Tests/CloudAnchorTests"),
    ],
    swiftLanguageModes: [.v6]
)
