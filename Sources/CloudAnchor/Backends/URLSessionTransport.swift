import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real HTTP transport, on Foundation's `URLSession`.
///
/// Invariant: keeps the `HTTPTransport` requirements; cancelling the calling task cancels the
/// request in flight. An authentication challenge is refused and returned as a 401 response
/// (URLSession would otherwise hold the 401 back and wait for credentials), so the backend's
/// own 401 handling applies.
public struct URLSessionTransport: HTTPTransport {
    private let session: URLSession
    private let challenges: ChallengeRefuser

    /// Creates a transport with its own ephemeral session; `timeout` bounds each request.
    public init(timeout: TimeInterval = 60) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        challenges = ChallengeRefuser()
        session = URLSession(configuration: configuration, delegate: challenges, delegateQueue: nil)
    }

    /// Sends `request` through the session.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let task = makeTask(urlRequest, request, box) { continuation.resume(with: $0) }
                box.set(task)
                task.resume()
            }
        } onCancel: {
            box.cancel()
        }
    }

    private func makeTask(_ urlRequest: URLRequest, _ request: HTTPRequest, _ box: TaskBox,
                          _ finish: @escaping @Sendable (Result<HTTPResponse, any Error>) -> Void) -> URLSessionTask {
        let challenges = challenges
        if let destination = request.downloadTo {
            return session.downloadTask(with: urlRequest) { location, response, error in
                finish(Result {
                    let http = try Self.response(response, error, challenged: box.wasChallenged(by: challenges))
                    guard let location else { return http }
                    guard (200..<300).contains(http.status) else {
                        return HTTPResponse(status: http.status, headers: http.headers,
                                            body: (try? Data(contentsOf: location)) ?? Data())
                    }
                    try? FileManager.default.removeItem(at: destination)
                    try FileManager.default.moveItem(at: location, to: destination)
                    return http
                })
            }
        }
        let completion: @Sendable (Data?, URLResponse?, (any Error)?) -> Void = { data, response, error in
            finish(Result {
                var http = try Self.response(response, error, challenged: box.wasChallenged(by: challenges))
                http.body = data ?? Data()
                return http
            })
        }
        switch request.body {
        case .none: return session.dataTask(with: urlRequest, completionHandler: completion)
        case .data(let data): return session.uploadTask(with: urlRequest, from: data, completionHandler: completion)
        case .file(let url): return session.uploadTask(with: urlRequest, fromFile: url, completionHandler: completion)
        }
    }

    private static func response(_ response: URLResponse?, _ error: (any Error)?, challenged: Bool) throws -> HTTPResponse {
        if challenged { return HTTPResponse(status: 401) }
        if let error { throw error }
        guard let http = response as? HTTPURLResponse else { throw URLError(.badServerResponse) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String { headers[name] = value }
        }
        return HTTPResponse(status: http.statusCode, headers: headers)
    }
}

/// Refuses every authentication challenge and remembers which tasks got one.
private final class ChallengeRefuser: NSObject, URLSessionTaskDelegate, Sendable {
    private let challenged = Mutex<Set<Int>>([])

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        _ = challenged.withLock { $0.insert(task.taskIdentifier) }
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    /// Whether `identifier` was challenged; forgets it.
    func take(_ identifier: Int) -> Bool {
        challenged.withLock { $0.remove(identifier) != nil }
    }
}

/// Holds the task in flight so a cancellation (even one that came first) or the completion can reach it.
private final class TaskBox: Sendable {
    private struct State {
        var task: URLSessionTask?
        var cancelled = false
    }

    private let state = Mutex(State())

    func set(_ task: URLSessionTask) {
        let cancelled = state.withLock { state in
            state.task = task
            return state.cancelled
        }
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }

    func wasChallenged(by refuser: ChallengeRefuser) -> Bool {
        guard let identifier = state.withLock({ $0.task?.taskIdentifier }) else { return false }
        return refuser.take(identifier)
    }
}
