import Foundation

/// What the WebDAV backend does with one HTTP response: the error mapping table for WebDAV.
///
/// Invariant: 2xx succeeds; 404 is `.notFound` for reads, success for deletes and listings;
/// 405, 412, 423 and 501 reach a LOCK's caller as answers;
/// 401 asks for one retry, then `.authRevoked`; 403 is `.storageFull` when the body names a
/// quota, else `.authRevoked`; 507 is `.storageFull`; 429 and 503 wait for Retry-After (capped
/// at `maxRetryAfter`) and retry, then `.transport`; everything else is `.transport`.
public enum WebDAVStatusPolicy {
    /// The kind of request, which decides what a 404 or 405 means.
    public enum RequestKind: Sendable, Hashable {
        /// PROPFIND.
        case list
        /// GET.
        case read
        /// PUT.
        case write
        /// DELETE.
        case delete
        /// MKCOL.
        case makeFolder
        /// LOCK and UNLOCK: 405, 412, 423 and 501 are answers the caller reads, not failures.
        case lock
        /// PROPFIND with `Depth: infinity`: 400, 403 and 501 (the server refuses that depth) are
        /// answers the caller reads (it lists folder by folder instead).
        case listWholeTree
    }

    /// The decision for one response.
    public enum Decision: Sendable, Hashable {
        /// The request did what was asked (or there was nothing to do).
        case success
        /// Retry once with fresh credentials.
        case reauthenticate
        /// Wait this many seconds and retry.
        case retry(after: Double)
        /// Fail with this error.
        case fail(CloudError)
    }

    /// The longest Retry-After the backend waits, in seconds.
    public static let maxRetryAfter = 10.0

    /// The decision for `response` to a request of `kind`.
    public static func decide(_ response: HTTPResponse, for kind: RequestKind, now: Date = Date()) -> Decision {
        switch response.status {
        case 200..<300: return .success
        case 404 where kind == .read: return .fail(.notFound)
        case 404 where kind == .delete || kind == .list || kind == .listWholeTree: return .success
        case let status where kind == .listWholeTree && [400, 403, 501].contains(status): return .success
        case 405 where kind == .makeFolder: return .success
        case let status where kind == .lock && [405, 412, 423, 501].contains(status): return .success
        case 401: return .reauthenticate
        case 403:
            let body = String(decoding: response.body, as: UTF8.self).lowercased()
            return .fail(body.contains("quota") ? .storageFull : .authRevoked)
        case 507: return .fail(.storageFull)
        case 429, 503: return .retry(after: retryAfter(response.headers["retry-after"], now: now))
        default: return .fail(.transport)
        }
    }

    /// The wait a Retry-After value asks for (seconds or an HTTP date), capped at `maxRetryAfter`;
    /// one second when absent or unreadable.
    public static func retryAfter(_ value: String?, now: Date = Date()) -> Double {
        guard let value = value?.trimmingCharacters(in: .whitespaces) else { return 1 }
        if let seconds = Double(value) { return min(max(seconds, 0), maxRetryAfter) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: value) else { return 1 }
        return min(max(date.timeIntervalSince(now), 0), maxRetryAfter)
    }

    /// Maps a transport failure (no response) to a `CloudError`: no connection is `.offline`,
    /// anything else (timeouts included) `.transport`; cancellation passes through.
    public static func cloudError(_ error: any Error) -> any Error {
        if error is CancellationError || error is CloudError { return error }
        guard let urlError = error as? URLError else { return CloudError.transport }
        switch urlError.code {
        case .cancelled: return CancellationError()
        case .notConnectedToInternet, .cannotConnectToHost, .networkConnectionLost, .cannotFindHost,
             .dnsLookupFailed, .internationalRoamingOff, .dataNotAllowed:
            return CloudError.offline
        default: return CloudError.transport
        }
    }
}
