import Foundation
import Synchronization

/// A WebDAV server as cloud storage (rclone, nginx's DAV module, Nextcloud and the like).
///
/// Invariant: every HTTP status is mapped by `WebDAVStatusPolicy`: 401 is retried once, 429 and
/// 503 are retried after Retry-After (capped at 10 s) up to `maxRetries` times, then
/// `.transport`; a connection failure is `.offline`. The identity is the server URL and user.
public final class WebDAVStorage: CloudStorage {
    /// A user name and password sent with HTTP Basic authentication.
    public struct Credentials: Sendable, Hashable {
        /// The user name.
        public var user: String
        /// The password.
        public var password: String

        /// Creates credentials.
        public init(user: String, password: String) {
            self.user = user
            self.password = password
        }
    }

    /// The collection the backup lives in; always ends with `/`.
    public let baseURL: URL
    private let credentials: Credentials?
    private let transport: any HTTPTransport
    private let sleeper: any Sleeper
    private let maxRetries: Int
    private let createdFolders = Mutex<Set<ExactPath>>([])
    private let listsWholeTree = Mutex(true)
    private let knownTags = Mutex<[ExactPath: String]>([:])
    private let cache: DownloadCache?

    /// Creates a storage over the collection at `baseURL` (created on the first write when
    /// missing); with a `cacheFolder`, `prefetch` downloads into it and reads and downloads of a
    /// file whose ETag has not changed since the last listing are served from it.
    public init(baseURL: URL, credentials: Credentials? = nil, transport: any HTTPTransport = URLSessionTransport(),
                sleeper: any Sleeper = TaskSleeper(), maxRetries: Int = 3, cacheFolder: URL? = nil) {
        cache = cacheFolder.map(DownloadCache.init(folder:))
        self.baseURL = baseURL.absoluteString.hasSuffix("/") ? baseURL : baseURL.appendingPathComponent("", isDirectory: true)
        self.credentials = credentials
        self.transport = transport
        self.sleeper = sleeper
        self.maxRetries = maxRetries
    }

    /// Lists every file below the base collection: one PROPFIND with `Depth: infinity` (a whole
    /// tree in one request), or, on a server that refuses it, one PROPFIND (`Depth: 1`) per
    /// folder from then on. Remembers each file's ETag for the download cache, and each listed
    /// file's folders as existing (no MKCOL for them).
    public func list() async throws -> [RemoteFile] {
        var files: [RemoteFile]
        if let whole = try await listWholeTree() {
            files = whole
        } else {
            files = try await listFolderByFolder()
        }
        files.sort { $0.path.bytesPrecede($1.path) }
        let tags = Dictionary(files.compactMap { file in file.contentTag.map { (ExactPath(file.path), $0) } },
                              uniquingKeysWith: { first, _ in first })
        knownTags.withLock { $0 = tags }
        var folders: Set<ExactPath> = []
        for file in files {
            let components = file.path.split(separator: "/").map(String.init)
            for depth in 0..<components.count { folders.insert(ExactPath(components.prefix(depth).joined(separator: "/"))) }
        }
        createdFolders.withLock { $0.formUnion(folders) }
        return files
    }

    /// The whole tree from one `Depth: infinity` PROPFIND, or `nil` when the server refuses it
    /// (then never asked again).
    private func listWholeTree() async throws -> [RemoteFile]? {
        guard listsWholeTree.withLock({ $0 }) else { return nil }
        let request = HTTPRequest(method: "PROPFIND", url: url([], isFolder: true),
                                  headers: ["Depth": "infinity", "Content-Type": "application/xml; charset=utf-8"],
                                  body: .data(WebDAVMultistatus.request))
        let response = try await perform(request, .listWholeTree)
        if response.status == 404 { return [] }
        guard (200..<300).contains(response.status) else {
            listsWholeTree.withLock { $0 = false }
            return nil
        }
        return try WebDAVMultistatus.parse(response.body).compactMap { entry in
            guard !entry.isCollection, let components = relativeComponents(entry.href), !components.isEmpty else { return nil }
            return RemoteFile(path: components.joined(separator: "/"), size: entry.size, contentTag: entry.etag)
        }
    }

    private func listFolderByFolder() async throws -> [RemoteFile] {
        var files: [RemoteFile] = []
        var folders: [[String]] = [[]]
        while let folder = folders.popLast() {
            let request = HTTPRequest(method: "PROPFIND", url: url(folder, isFolder: true),
                                      headers: ["Depth": "1", "Content-Type": "application/xml; charset=utf-8"],
                                      body: .data(WebDAVMultistatus.request))
            let response = try await perform(request, .list)
            if response.status == 404 { continue }
            for entry in try WebDAVMultistatus.parse(response.body) {
                guard let components = relativeComponents(entry.href), !components.isEmpty,
                      !components.joined(separator: "/").bytesEqual(folder.joined(separator: "/"))
                else { continue }
                if entry.isCollection {
                    folders.append(components)
                } else {
                    files.append(RemoteFile(path: components.joined(separator: "/"), size: entry.size, contentTag: entry.etag))
                }
            }
        }
        return files
    }

    /// The components of an href below the base collection, or `nil` when it is not below it.
    private func relativeComponents(_ href: String) -> [String]? {
        let basePath = baseURL.path.hasSuffix("/") ? baseURL.path : baseURL.path + "/"
        let path = Self.hrefPath(href)
        guard path.bytesHavePrefix(basePath) else { return nil }
        let relative = String(decoding: path.utf8.dropFirst(basePath.utf8.count), as: UTF8.self)
        return relative.split(separator: "/").map(String.init)
    }

    /// The decoded path of an href (absolute URL or absolute path), bytes kept exactly.
    private static func hrefPath(_ href: String) -> String {
        guard let scheme = href.range(of: "://") else { return href }
        let afterHost = href[scheme.upperBound...].drop { $0 != "/" }
        return String(afterHost)
    }

    /// The server URL and user, without the password.
    public func identityKey() async throws -> String? {
        let user = credentials.map { $0.user + "@" } ?? ""
        let host = baseURL.host ?? ""
        let port = baseURL.port.map { ":\($0)" } ?? ""
        return "webdav:\(baseURL.scheme ?? "http")://\(user)\(host)\(port)\(baseURL.path)"
    }

    /// GETs a whole file, or reads it from the cache when its ETag has not changed since the
    /// last listing (and caches what it GETs).
    public func readBytes(_ path: String) async throws -> Data {
        let tag = knownTags.withLock { $0[ExactPath(path)] }
        if let cache, let tag, let cached = cache.read(path, tag: tag) { return cached }
        let data = try await perform(HTTPRequest(method: "GET", url: url(try RemotePath.components(path))), .read).body
        if let cache, let tag {
            let partial = cache.partial(path)
            if (try? data.write(to: partial)) != nil { cache.store(partial, as: path, tag: tag) }
        }
        return data
    }

    /// PUTs `data` as `path`, creating missing folders first.
    public func writeBytes(_ path: String, _ data: Data) async throws -> RemoteFile {
        try await put(path, body: .data(data), size: Int64(data.count))
    }

    /// PUTs the local file as `path`, creating missing folders first.
    public func writeFile(_ path: String, from localURL: URL) async throws -> RemoteFile {
        guard let size = (try? FileManager.default.attributesOfItem(atPath: localURL.path)[.size] as? NSNumber)?.int64Value
        else { throw CloudError.localIO }
        return try await put(path, body: .file(localURL), size: size)
    }

    /// GETs `path` into `localURL`, or moves the cached copy there when the file's ETag has not
    /// changed since the last listing.
    public func downloadFile(_ path: String, to localURL: URL) async throws {
        if let cache, let tag = knownTags.withLock({ $0[ExactPath(path)] }), cache.take(path, tag: tag, to: localURL) { return }
        let request = HTTPRequest(method: "GET", url: url(try RemotePath.components(path)), downloadTo: localURL)
        _ = try await perform(request, .read)
    }

    /// DELETEs `path`; a 404 succeeds.
    public func delete(_ path: String) async throws {
        _ = try await perform(HTTPRequest(method: "DELETE", url: url(try RemotePath.components(path))), .delete)
    }

    /// With a cache, downloads `paths` not cached at their listed ETag into it, eight per batch,
    /// two batches in flight (`BatchedPrefetch`; WebDAV has no multi-GET, so a batch is eight
    /// GETs in turn); never throws (a failed fetch is fetched again by its download). Without a
    /// cache it does nothing.
    public func prefetch(_ paths: [String]) async {
        guard let cache else { return }
        let tags = knownTags.withLock { $0 }
        let wanted = paths.compactMap { path in tags[ExactPath(path)].map { (path, $0) } }
            .filter { !cache.contains($0.0, tag: $0.1) }
        let tagged = Dictionary(wanted.map { (ExactPath($0.0), $0.1) }, uniquingKeysWith: { first, _ in first })
        await BatchedPrefetch.run(wanted.map(\.0)) { batch in
            for path in batch {
                guard let tag = tagged[ExactPath(path)], let components = try? RemotePath.components(path) else { continue }
                let partial = cache.partial(path)
                let request = HTTPRequest(method: "GET", url: self.url(components), downloadTo: partial)
                if (try? await self.perform(request, .read)) != nil {
                    cache.store(partial, as: path, tag: tag)
                } else {
                    try? FileManager.default.removeItem(at: partial)
                }
            }
        }
    }

    /// Claims the writer slot with a WebDAV exclusive write `LOCK` on `cloudanchor.lease`
    /// (the server enforces its timeout: the lease's expiry), first refreshing the lock a killed
    /// run of the same claimant left (`previousHandle`); the lock's owner and a `LeaseRecord`
    /// written under the lock say who holds it. A server without `LOCK` (405, 501) gets the
    /// file lease.
    public func acquireLease(_ claim: LeaseClaim) async throws -> LeaseAnswer {
        if let handle = claim.previousHandle, let lease = try await refresh(handle, claim) { return .granted(lease) }
        try await makeFolders([])
        let owner = claim.owner.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
        let body = Data("""
            <?xml version="1.0" encoding="utf-8"?>
            <d:lockinfo xmlns:d="DAV:"><d:lockscope><d:exclusive/></d:lockscope><d:locktype><d:write/></d:locktype>\
            <d:owner>\(owner)</d:owner></d:lockinfo>
            """.utf8)
        let response = try await perform(HTTPRequest(method: "LOCK", url: url([LeaseRecord.path]), headers: [
            "Timeout": "Second-\(Int(claim.duration.rounded(.up)))", "Depth": "0",
            "Content-Type": "application/xml; charset=utf-8",
        ], body: .data(body)), .lock)
        switch response.status {
        case 200..<300:
            guard let handle = response.headers["lock-token"] else { throw CloudError.transport }
            try await writeRecord(LeaseRecord(claim), under: handle)
            return .granted(RemoteLease(owner: claim.owner, token: claim.token,
                                        expiresAt: claim.now.addingTimeInterval(claim.duration), handle: handle))
        case 423:
            let holder = (try? await readBytes(LeaseRecord.path)).flatMap(LeaseRecord.decode)
            return .held(owner: holder?.owner ?? "another writer", until: holder?.expiresAt)
        case 405, 501:
            return try await FileLease(storage: self).acquire(claim)
        default:
            throw CloudError.transport
        }
    }

    /// Refreshes the lock; `.held` when the server no longer knows it.
    public func renewLease(_ lease: RemoteLease, for claim: LeaseClaim) async throws -> LeaseAnswer {
        guard let handle = lease.handle else { return try await FileLease(storage: self).acquire(claim) }
        if let renewed = try await refresh(handle, claim) { return .granted(renewed) }
        return .held(owner: "another writer", until: nil)
    }

    /// Deletes the lease file under the lock (which ends the lock) and UNLOCKs in case the
    /// server kept it (or removes the file lease); failures are left to the lock's timeout.
    public func releaseLease(_ lease: RemoteLease) async {
        guard let handle = lease.handle else { return await FileLease(storage: self).release(lease) }
        _ = try? await perform(HTTPRequest(method: "DELETE", url: url([LeaseRecord.path]), headers: ["If": "(\(handle))"]),
                               .lock)
        _ = try? await perform(HTTPRequest(method: "UNLOCK", url: url([LeaseRecord.path]), headers: ["Lock-Token": handle]),
                               .lock)
    }

    /// Refreshes the lock `handle` for `claim`, or `nil` when the server does not hold it.
    private func refresh(_ handle: String, _ claim: LeaseClaim) async throws -> RemoteLease? {
        let response = try await perform(HTTPRequest(method: "LOCK", url: url([LeaseRecord.path]), headers: [
            "Timeout": "Second-\(Int(claim.duration.rounded(.up)))", "If": "(\(handle))",
        ]), .lock)
        guard (200..<300).contains(response.status) else { return nil }
        try await writeRecord(LeaseRecord(claim), under: handle)
        return RemoteLease(owner: claim.owner, token: claim.token, expiresAt: claim.now.addingTimeInterval(claim.duration),
                           handle: handle)
    }

    private func writeRecord(_ record: LeaseRecord, under handle: String) async throws {
        _ = try await perform(HTTPRequest(method: "PUT", url: url([LeaseRecord.path]), headers: ["If": "(\(handle))"],
                                          body: .data(record.encoded)), .write)
    }

    private func put(_ path: String, body: HTTPRequest.Body, size: Int64) async throws -> RemoteFile {
        let components = try RemotePath.components(path)
        try await makeFolders(Array(components.dropLast()))
        let response = try await perform(HTTPRequest(method: "PUT", url: url(components), body: body), .write)
        return RemoteFile(path: path, size: size, contentTag: response.headers["etag"])
    }

    private func makeFolders(_ components: [String]) async throws {
        for depth in 0...components.count {
            let folder = Array(components.prefix(depth))
            let key = ExactPath(folder.joined(separator: "/"))
            if createdFolders.withLock({ $0.contains(key) }) { continue }
            _ = try await perform(HTTPRequest(method: "MKCOL", url: url(folder, isFolder: true)), .makeFolder)
            _ = createdFolders.withLock { $0.insert(key) }
        }
    }

    private func url(_ components: [String], isFolder: Bool = false) -> URL {
        components.enumerated().reduce(baseURL) { url, item in
            url.appendingPathComponent(item.element, isDirectory: isFolder || item.offset < components.count - 1)
        }
    }

    private func perform(_ request: HTTPRequest, _ kind: WebDAVStatusPolicy.RequestKind) async throws -> HTTPResponse {
        var request = request
        if let credentials {
            let token = Data("\(credentials.user):\(credentials.password)".utf8).base64EncodedString()
            request.headers["Authorization"] = "Basic \(token)"
        }
        var reauthenticated = false
        var retries = 0
        while true {
            let response: HTTPResponse
            do {
                response = try await transport.send(request)
            } catch {
                throw WebDAVStatusPolicy.cloudError(error)
            }
            switch WebDAVStatusPolicy.decide(response, for: kind) {
            case .success:
                return response
            case .reauthenticate:
                guard !reauthenticated else { throw CloudError.authRevoked }
                reauthenticated = true
            case .retry(let seconds):
                guard retries < maxRetries else { throw CloudError.transport }
                retries += 1
                try await sleeper.sleep(seconds: seconds)
            case .fail(let error):
                throw error
            }
        }
    }
}
