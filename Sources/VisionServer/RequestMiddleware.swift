import Foundation
import Hummingbird
import JSONSupport
import Logging
import Synchronization

/// Every request: the API key checked (when the server has keys), then, once answered, one
/// log line and the request metrics.
struct RequestMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let state: ServerState
    let logger: Logger

    /// Routes any client may call: probes and the metrics scraper carry no key.
    static let open: Set<String> = ["/healthz", "/readyz", "/metrics"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        if let refusal = refusal(request) {
            response = refusal
        } else {
            do {
                response = try await next(request, context)
            } catch let error as any HTTPResponseError {
                response = Answer.error(error.status.code, error.status == .notFound ? "NOT_FOUND" : "INVALID_ARGUMENT", Self.message(error.status))
            }
        }
        let elapsed = ContinuousClock.now - start
        let route = context.endpointPath ?? "unmatched"
        state.record(route: route, method: request.method.rawValue, status: response.status.code, seconds: elapsed)
        logger.info("request", metadata: [
            "method": .string(request.method.rawValue), "path": .string(request.uri.path), "status": .stringConvertible(response.status.code),
            "ms": .string(String(format: "%.1f", elapsed.milliseconds)),
        ])
        return response
    }

    /// The answer to a request without a valid key, as Google's APIs give it; nil when it may pass.
    private func refusal(_ request: Request) -> Response? {
        guard !state.apiKeys.isEmpty, !Self.open.contains(request.uri.path) else { return nil }
        let header = request.headers.first { $0.name.canonicalName == "x-goog-api-key" }?.value
        let query = request.uri.queryParameters["key"].map(String.init)
        guard let key = header ?? query else {
            return Answer.error(403, "PERMISSION_DENIED", "The request is missing a valid API key.")
        }
        guard state.apiKeys.contains(key) else {
            return Answer.error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")
        }
        return nil
    }

    private static func message(_ status: HTTPResponse.Status) -> String {
        switch status {
        case .notFound: "no such method: the server answers POST /v1/images:annotate, /v1/files:annotate and /v1/score, GET /healthz, /readyz and /metrics"
        default: status.reasonPhrase
        }
    }
}

/// Writes each log entry as one line on standard error: `time level message key=value…`, or a
/// JSON object with `time`, `level`, `message` and the metadata as members.
struct RequestLogHandler: LogHandler {
    let format: ServerSettings.LogFormat
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info
    private static let lock = Mutex(())

    init(format: ServerSettings.LogFormat) {
        self.format = format
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }.sorted { $0.key < $1.key }
        let time = Date().formatted(.iso8601)
        let line: String
        switch format {
        case .text:
            line = ([time, event.level.rawValue, event.message.description] + merged.map { "\($0.key)=\($0.value)" }).joined(separator: " ")
        case .json:
            var members: [(String, JSONValue)] = [("time", .string(time)), ("level", .string(event.level.rawValue)), ("message", .string(event.message.description))]
            members += merged.map { ($0.key, .string($0.value.description)) }
            line = JSONValue.object(members).serialized
        }
        Self.lock.withLock { _ in FileHandle.standardError.write(Data((line + "\n").utf8)) }
    }
}
