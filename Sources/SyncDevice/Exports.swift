// An app imports `SyncDevice` alone: the types its API takes and returns come with it (the
// kernel's rows, transactions, readers and errors; the relay protocol and NATS's options; the account directory;
// the join and snapshot values), as swift-nio's `NIO` re-exports `NIOCore`.
@_exported import NatsRelay
@_exported import SnapshotTransfer
@_exported import SyncRelay
@_exported import SyncEnvelope
@_exported import SyncJoin
@_exported import SyncKernel
