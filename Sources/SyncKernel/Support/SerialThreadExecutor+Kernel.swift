import SQLiteStore

/// The serial executor with a thread of its own that the kernel's and the device's actors run on
/// (`SQLiteStore.SerialThreadExecutor`, beside the SQLite connections it exists for), named here
/// so a host that imports the kernel can make one and pass it in.
public typealias SerialThreadExecutor = SQLiteStore.SerialThreadExecutor
