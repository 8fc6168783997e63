extension SyncKernelError {
    /// A stable machine-readable reason: a code string ("SK101") and a symbolic name
    /// ("truncatedInput"), grouped by the layer that raises it.
    ///
    /// Invariants: every code is one of the static members below (the initialiser is private, so
    /// no other module mints one) and is listed in `all`; code strings are unique, match
    /// `SK[1-7][0-9][0-9]`, and never change or pass to another reason, so hosts may persist or
    /// match on them; the first digit names the layer (1 encoding, 2 digest, frames and their
    /// envelopes, 3 merge, clock and device identity (keys, their files and joining an account
    /// included), 4 namespaces, 5 store, 6 relay and blob store, 7 the embedded device that runs them all).
    /// Codes of other modules use the same strings and the same layer digits: SK601 to SK607
    /// moved to `RelayError` (SyncRelay), SK310 to SK312 and SK314 to `JoinError` (SyncJoin),
    /// SK211 to SK215, SK608 and SK609 to `SnapshotTransferError` (SnapshotTransfer), and
    /// SK701 to SK704 to `SyncDeviceError` (SyncDevice),
    /// with their strings; the kernel never reuses them. SK402 (a
    /// merge rule and a causal membership that disagreed) is retired: causal tracking is now read off the rule, so the mistake cannot be
    /// written; the code is never reused. `description` holds the code and the name only, never
    /// user data. A struct rather than an enum, so a release can add a code without breaking a
    /// host's exhaustive `switch`. Description, equality and lookup by code string come from
    /// `StableCode`.
    public struct Code: StableCode {
        /// The stable code string, for example "SK101".
        public let rawValue: String
        /// The symbolic name, for example "truncatedInput".
        public let name: String

        private init(_ rawValue: String, _ name: String) {
            self.rawValue = rawValue
            self.name = name
        }

        // MARK: Encoding (1xx)

        /// The input ends inside an item.
        public static let truncatedInput = Code("SK101", "truncatedInput")
        /// An encoding other than the canonical one (a longer integer form, unsorted map keys, a zero counter).
        public static let nonCanonicalEncoding = Code("SK102", "nonCanonicalEncoding")
        /// CBOR the kernel never writes: floats, indefinite lengths, reserved values.
        public static let unsupportedEncoding = Code("SK103", "unsupportedEncoding")
        /// Input beyond the reader's limits, or an integer out of range.
        public static let limitExceeded = Code("SK104", "limitExceeded")
        /// Bytes after the one item expected.
        public static let trailingBytes = Code("SK105", "trailingBytes")
        /// A text string that is not valid UTF-8.
        public static let invalidText = Code("SK106", "invalidText")
        /// An item of another type than the one expected.
        public static let unexpectedType = Code("SK107", "unexpectedType")
        /// A required map key is absent.
        public static let missingField = Code("SK108", "missingField")
        /// A map repeats a key.
        public static let duplicateMapKey = Code("SK109", "duplicateMapKey")

        // MARK: Digest and frames (2xx)

        /// A state digest of the wrong length.
        public static let malformedDigest = Code("SK201", "malformedDigest")
        /// A peer's digest or frame was made under another schema fingerprint.
        public static let schemaMismatch = Code("SK202", "schemaMismatch")
        /// A digest layout byte this build does not know.
        public static let unsupportedLayout = Code("SK203", "unsupportedLayout")
        /// A frame kind this build does not know.
        public static let unknownFrameKind = Code("SK204", "unknownFrameKind")
        /// A payload that is not a `sync_delta`.
        public static let unsupportedPayload = Code("SK205", "unsupportedPayload")
        /// A frame from another account.
        public static let foreignAccount = Code("SK206", "foreignAccount")
        /// A namespace outside the store's `NamespaceSet`.
        public static let unknownNamespace = Code("SK207", "unknownNamespace")
        /// A frame from a device that is not a sibling.
        public static let unknownSibling = Code("SK208", "unknownSibling")
        /// A frame or row whose structure is wrong (field counts, order, ranges, nesting).
        public static let malformedFrame = Code("SK209", "malformedFrame")
        /// A sender certificate that does not verify under the account's issuer key, names another
        /// account or other keys than the device presenting it, or has expired (a device does not
        /// seal under an expired certificate of its own).
        public static let invalidCertificate = Code("SK210", "invalidCertificate")
        // SK211 to SK215 are `SnapshotTransferError`'s, in the SnapshotTransfer module.

        // MARK: Merge and clock (3xx)

        /// A causal write or delete before the device identity was configured.
        public static let deviceIdentityNotConfigured = Code("SK301", "deviceIdentityNotConfigured")
        /// A second, different device identity for one store.
        public static let deviceIdentityAlreadyConfigured = Code("SK302", "deviceIdentityAlreadyConfigured")
        /// A device id, key seed or account fingerprint of the wrong size, or a failed key derivation.
        public static let invalidDeviceIdentity = Code("SK303", "invalidDeviceIdentity")
        /// A counter beyond its bound: a version-vector counter above `VersionVector.maxCounter` (or
        /// a namespace's own causal counter above its bound) from a peer, refused on receipt with
        /// nothing stored, or a stored counter at its bound that a local write would have to
        /// advance past it, refused with the write's transaction rolled back.
        public static let counterOutOfRange = Code("SK304", "counterOutOfRange")

        /// The store could not record a device epoch: the lease file beside its database cannot
        /// be written, so no local write may count under the epoch yet.
        public static let deviceEpochUnavailable = Code("SK305", "deviceEpochUnavailable")
        /// The device holds no key material for sealing (no account seed, device keys or
        /// certificate), or the recipient's keys are unknown: nothing was sent (fail closed).
        public static let keyMaterialMissing = Code("SK306", "keyMaterialMissing")
        /// A key file that others may read or write (any permission bit beyond 0600), or that is
        /// not a regular file: it was not read.
        public static let keyFileExposed = Code("SK307", "keyFileExposed")
        /// A key or certificate file whose contents are not the expected format (wrong length, an
        /// unknown magic or version).
        public static let malformedKeyFile = Code("SK308", "malformedKeyFile")
        /// A key file or account directory that cannot be read or written: missing, not
        /// creatable, or already holding a key that would be overwritten.
        public static let keyFileUnavailable = Code("SK309", "keyFileUnavailable")
        // SK310 to SK312 and SK314 are `JoinError`'s, in the SyncJoin module.
        /// A resolve whose versions seen are not the live versions the key holds now (a merge
        /// brought or replaced one since they were read); nothing was written: read the versions
        /// again and resolve again.
        public static let conflictChanged = Code("SK313", "conflictChanged")

        // MARK: Namespaces (4xx)

        /// Two namespaces with one name, ignoring case.
        public static let duplicateNamespace = Code("SK401", "duplicateNamespace")
        /// A namespace name that is empty, too long, or not ASCII letters, digits and `_`.
        public static let invalidNamespaceName = Code("SK403", "invalidNamespaceName")
        /// An operation the namespace's merge rule cannot express (a delete outside `.causal`).
        public static let operationNotSupportedByRule = Code("SK404", "operationNotSupportedByRule")
        /// A namespace refused an operation on its rows.
        public static let namespaceRefused = Code("SK405", "namespaceRefused")
        /// A namespace declaration the kernel can prove wrong (an undeclared property, a missing or
        /// stray field merge, an unhashed key), or a hook that broke its contract (an `adopt` that
        /// changed the winning row's leaf).
        public static let invalidDeclaration = Code("SK406", "invalidDeclaration")
        /// A local save of a row that does not read back through the namespace's own decoder to
        /// the same bytes and leaf; nothing of the write is stored.
        public static let rowRejected = Code("SK407", "rowRejected")
        /// A local write of an operation the namespace lets only the row's author make (a message
        /// edited or deleted for everyone by an account that did not send it); nothing of the
        /// write is stored.
        public static let notTheAuthor = Code("SK408", "notTheAuthor")

        // MARK: Store (5xx)

        /// SQLite reported an error.
        public static let sqlite = Code("SK501", "sqlite")
        /// Stored rows or bookkeeping the kernel cannot read back.
        public static let corruptBookkeeping = Code("SK502", "corruptBookkeeping")
        /// The store was used after it was closed.
        public static let storeClosed = Code("SK503", "storeClosed")
        /// Stored rows are in a row format the namespace declares no migration from.
        public static let rowFormatChanged = Code("SK504", "rowFormatChanged")
        /// The file at the store's path is not a store: zero bytes long (a truncated store, or a
        /// file that never held one) or not a SQLite database at all. Nothing was written to it.
        public static let notAStore = Code("SK505", "notAStore")
        /// The file at the store's path is a SQLite database of another application: another
        /// application id, or none and not the kernel's tables. Nothing was written to it.
        public static let foreignDatabase = Code("SK506", "foreignDatabase")
        /// Another open store holds the file at the store's path for writing (another process, or
        /// another `KernelStore` of this one), reached through this path or any other (a symbolic
        /// or hard link): one writer per store. Nothing was written. The detail names the holder's
        /// process id where the system tells it.
        public static let storeInUse = Code("SK507", "storeInUse")
        /// The disk (or the file system's quota) holding the store is full: the transaction was
        /// rolled back whole and nothing of it is stored; the store stays open, and writes succeed
        /// again once there is room.
        public static let storageFull = Code("SK508", "storageFull")
        /// The store's file, its folder or its file system refuses writes (read-only mount,
        /// permissions): the transaction was rolled back whole and nothing of it is stored.
        public static let storeReadOnly = Code("SK509", "storeReadOnly")

        // SK601 to SK607 are `RelayError`'s (SyncRelay), SK608 and SK609 `SnapshotTransferError`'s
        // (SnapshotTransfer).

        // MARK: Device (7xx; SK701 to SK704 are `SyncDeviceError`'s, in the SyncDevice module)

        /// A snapshot export or absorb ended because its device is stopping: an export's partly
        /// stored blob is removed and nothing is offered; an absorb keeps the transactions its
        /// import committed (it only inserts what is absent) and the digest loop fills the rest.
        public static let snapshotStopped = Code("SK705", "snapshotStopped")

        /// Every code, in code order.
        public static let all: [Code] = [
            truncatedInput, nonCanonicalEncoding, unsupportedEncoding, limitExceeded, trailingBytes, invalidText,
            unexpectedType, missingField, duplicateMapKey,
            malformedDigest, schemaMismatch, unsupportedLayout, unknownFrameKind, unsupportedPayload, foreignAccount,
            unknownNamespace, unknownSibling, malformedFrame, invalidCertificate,
            deviceIdentityNotConfigured, deviceIdentityAlreadyConfigured, invalidDeviceIdentity, counterOutOfRange,
            deviceEpochUnavailable, keyMaterialMissing, keyFileExposed, malformedKeyFile, keyFileUnavailable,
            conflictChanged,
            duplicateNamespace, invalidNamespaceName, operationNotSupportedByRule, namespaceRefused, invalidDeclaration,
            rowRejected, notTheAuthor,
            sqlite, corruptBookkeeping, storeClosed, rowFormatChanged, notAStore, foreignDatabase, storeInUse, storageFull, storeReadOnly,
            snapshotStopped,
        ]
    }
}
