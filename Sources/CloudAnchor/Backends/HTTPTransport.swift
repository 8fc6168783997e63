import Foundation

/// One HTTP request as the WebDAV backend sends it.
///
/// Invariant: `body` is sent as given; with `downloadTo` set, a successful response's body is
/// written to that file instead of being returned.
public struct HTTPRequest: Sendable, Hashable {
    /// What the request carries.
    public enum Body: Sendable, Hashable {
        /// No body.
        case none
        /// Bytes in memory.
        case data(Data)
        /// The content of a local file, streamed.
        case file(URL)
    }

    /// The method (GET, PUT, PROPFIND, MKCOL, DELETE).
    public var method: String
    /// The target.
    public var url: URL
    /// The headers.
    public var headers: [String: String]
    /// The body.
    public var body: Body
    /// Where a successful response's body goes, when it is a download.
    public var downloadTo: URL?

    /// Creates a request.
    public init(method: String, url: URL, headers: [String: String] = [:], body: Body = .none, downloadTo: URL? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.downloadTo = downloadTo
    }
}

/// One HTTP response.
///
/// Invariant: header names are lowercased.
public struct HTTPResponse: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The headers, names lowercased.
    public var headers: [String: String]
    /// The body (empty for a download that went to a file).
    public var body: Data

    /// Creates a response, lowercasing the header names.
    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}

/// Sends HTTP requests for the WebDAV backend; `URLSessionTransport` is the real one.
///
/// Invariant: one call is one exchange: no retries, no redirects to other hosts, no mapping of
/// statuses (the backend maps them).
///
/// ## Implementation requirements
/// - Returns every response that arrived, whatever its status.
/// - Throws `URLError` (or `CancellationError`) only when no response arrived.
/// - Writes `downloadTo` only for a 2xx response, completely, replacing what was there.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}
