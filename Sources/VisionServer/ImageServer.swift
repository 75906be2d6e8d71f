import DocumentStructure
import Foundation
import GatedRecognition
import Hummingbird
import Logging
import Prometheus
import QualityAssessment
import ServiceLifecycle
import Synchronization
import TextRecognition

/// The server's settings, `imgquality serve`'s flags.
public struct ServerSettings: Sendable {
    public var host = "127.0.0.1"
    /// 0 takes a free port (the one taken is passed to `onListening`).
    public var port = 8080
    /// Requests worked on at once (the recognizer's threads); default: the processor's cores.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Requests that may wait for a worker before the server answers 429.
    public var queueLimit = 32
    /// A request body's limit (Cloud Vision takes JSON requests of up to 40 MB).
    public var maxRequestBytes = 40 << 20
    /// An image's limit, decoded from base64 (Cloud Vision's: 20 MB).
    public var maxImageBytes = 20 << 20
    /// Images in one `images:annotate` call (Cloud Vision's: 16).
    public var maxImages = 16
    /// A request's time: images not started by then get DEADLINE_EXCEEDED.
    public var requestTimeout: Duration = .seconds(120)
    /// The API keys a request must carry (`key` query parameter or `X-Goog-Api-Key` header);
    /// empty: no check.
    public var apiKeys: Set<String> = []
    /// Whether every image is recognized whatever the gate says (`--no-gate`).
    public var recognizesRejected = false
    /// One line per request on standard error: text, or JSON objects.
    public var logFormat: LogFormat = .text

    public enum LogFormat: String, Sendable, CaseIterable { case text, json }

    public init() {}

    /// Whether `host` is a loopback address, where the server may listen without keys.
    public var isLoopback: Bool {
        ["127.0.0.1", "::1", "localhost"].contains(host) || host.hasPrefix("127.")
    }
}

/// `imgquality serve`: Google Cloud Vision's `images:annotate` and `files:annotate` for
/// `TEXT_DETECTION` and `DOCUMENT_TEXT_DETECTION`, each image gated before it is read;
/// `/v1/score` (the score record of an image sent as the body); `/healthz`, `/readyz`
/// (ready once the recognizer is loaded) and `/metrics` (Prometheus). Ends gracefully on
/// SIGTERM or SIGINT: the requests in flight and waiting are answered first.
public struct ImageServer<Recognizer: TextRecognizer>: Sendable {
    let service: VisionService<Recognizer>
    let settings: ServerSettings
    /// Loads the recognizer; `/readyz` answers 200 once it has returned.
    let prepare: @Sendable () throws -> Void

    public init(
        recognizer: GatedTextRecognizer<Recognizer>, options: RecognitionOptions, analyzer: DocumentAnalyzer, settings: ServerSettings,
        prepare: @escaping @Sendable () throws -> Void
    ) {
        self.service = VisionService(gated: recognizer, analyzer: analyzer, options: options, recognizesRejected: settings.recognizesRejected)
        self.settings = settings
        self.prepare = prepare
    }

    /// Serves until SIGTERM or SIGINT, then finishes what was taken in and returns.
    /// `onListening` gets the port once the server accepts connections.
    public func run(onListening: @escaping @Sendable (Int) -> Void) async throws {
        let state = ServerState(settings: settings)
        let logger = Logger(label: "imgquality.serve") { _ in RequestLogHandler(format: settings.logFormat) }
        let router = Router(context: BasicRequestContext.self)
        router.middlewares.add(RequestMiddleware(state: state, logger: logger))
        routes(router, state: state)
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(settings.host, port: settings.port), serverName: "imgquality"),
            onServerRunning: { channel in
                onListening(channel.localAddress?.port ?? settings.port)
                // The recognizer loads while the server already answers /healthz; /readyz says when.
                let prepare = self.prepare
                Task.detached {
                    do {
                        try prepare()
                        state.ready.store(true, ordering: .releasing)
                    } catch {
                        logger.error("the recognizer could not be loaded: \(error)")
                    }
                }
            },
            logger: Logger(label: "imgquality.serve.hummingbird") { _ in SwiftLogNoOpLogHandler() })
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }

    private func routes(_ router: Router<BasicRequestContext>, state: ServerState) {
        let service = self.service, settings = self.settings
        router.get("healthz") { _, _ in Answer.json(.ok, .object([("status", .string("ok"))])) }
        router.get("readyz") { _, _ in
            state.ready.load(ordering: .acquiring)
                ? Answer.json(.ok, .object([("status", .string("ready"))]))
                : Answer.json(.serviceUnavailable, .object([("status", .string("loading the recognizer"))]))
        }
        router.get("metrics") { _, _ in
            state.queueDepth.set(to: Double(state.admission.depth))
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: state.registry.emitToBuffer())))
        }
        router.post("v1/images:annotate") { request, context in
            try await Self.admitted(state) { () async throws(RequestError) in
                let body = try await Self.body(request, limit: settings.maxRequestBytes)
                let items = try AnnotateRequest.images(body, maxItems: settings.maxImages, maxImageBytes: settings.maxImageBytes)
                return try await Self.annotate(items, file: false, service: service, state: state, settings: settings)
            }
        }
        router.post("v1/files:annotate") { request, context in
            try await Self.admitted(state) { () async throws(RequestError) in
                let body = try await Self.body(request, limit: settings.maxRequestBytes)
                let items = try AnnotateRequest.files(body, maxItems: settings.maxImages, maxFileBytes: settings.maxImageBytes)
                return try await Self.annotate(items, file: true, service: service, state: state, settings: settings)
            }
        }
        router.post("v1/score") { request, context in
            try await Self.admitted(state) { () async throws(RequestError) in
                let body = try await Self.body(request, limit: settings.maxImageBytes)
                guard !body.isEmpty else { throw RequestError.invalid("the body is empty: send the image's bytes") }
                let name = request.uri.queryParameters["name"].map(String.init) ?? "-"
                let assessment = await state.onWorkers { service.score(body, name: name) }
                state.count(assessment.image.map { $0.decision.pass ? .passed : .rejected } ?? .failed)
                // An image that cannot be read is the client's: 422 with the record that says why.
                return Answer.json(assessment.error == nil ? .ok : .unprocessableContent, assessment.record)
            }
        }
    }

    /// Every item of a call, in order, on the worker threads.
    private static func annotate(
        _ items: [AnnotateItem], file: Bool, service: VisionService<Recognizer>, state: ServerState, settings: ServerSettings
    ) async throws(RequestError) -> Response {
        let deadline = ContinuousClock.now + settings.requestTimeout
        let responses = await state.onWorkers {
            var responses: [JSONValue] = []
            for item in items {
                let (response, decisions) = await service.annotate(item, file: file, deadline: deadline)
                decisions.forEach(state.count)
                responses.append(response)
            }
            return responses
        }
        return Answer.json(.ok, .object([("responses", .array(responses))]))
    }

    /// Runs `work` once a worker is free, or answers 429 when the queue is full; a
    /// `RequestError` becomes its HTTP answer.
    private static func admitted(_ state: ServerState, _ work: () async throws(RequestError) -> Response) async throws -> Response {
        guard await state.admission.enter() else {
            let message = "the server is busy: \(state.admission.workers) requests are being worked on and \(state.admission.queueLimit) wait; retry later"
            return Answer.error(429, "RESOURCE_EXHAUSTED", message, headers: [.retryAfter: "1"])
        }
        defer { state.admission.leave() }
        do {
            return try await work()
        } catch {
            return Answer.error(error.httpStatus, error.status, error.message)
        }
    }

    /// The request's body, refused past `limit` bytes.
    private static func body(_ request: Request, limit: Int) async throws(RequestError) -> [UInt8] {
        do {
            let buffer = try await request.body.collect(upTo: limit)
            return Array(buffer.readableBytesView)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            throw RequestError(httpStatus: 413, status: "INVALID_ARGUMENT", message: "the request body is larger than \(limit) bytes")
        } catch {
            throw RequestError(httpStatus: 400, status: "INVALID_ARGUMENT", message: "the request body could not be read: \(error)")
        }
    }
}

/// The server's JSON answers.
enum Answer {
    /// A Google API error: `{"error": {"code", "message", "status"}}` with that HTTP status.
    static func error(_ code: Int, _ status: String, _ message: String, headers extra: HTTPFields = [:]) -> Response {
        var response = json(HTTPResponse.Status(code: code), .object([("error", .object([("code", .int(code)), ("message", .string(message)), ("status", .string(status))]))]))
        for field in extra { response.headers.append(field) }
        return response
    }

    static func json(_ status: HTTPResponse.Status, _ value: JSONValue) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: value.serialized + "\n")))
    }
}

/// What the routes share: readiness, the admission queue, the worker threads, the metrics.
final class ServerState: Sendable {
    let ready = Atomic(false)
    let admission: Admission
    let workers: WorkerThreads
    let registry = PrometheusCollectorRegistry()
    let queueDepth: Prometheus.Gauge
    let apiKeys: Set<String>

    init(settings: ServerSettings) {
        admission = Admission(workers: settings.workers, queueLimit: settings.queueLimit)
        workers = WorkerThreads(count: settings.workers)
        apiKeys = settings.apiKeys
        queueDepth = registry.makeGauge(descriptor: MetricNameDescriptor(
            namespace: "imgquality", metricName: "queue_depth", unitName: "requests", helpText: "Requests waiting for a worker."))
    }

    /// Runs `work` on the worker threads, not on the concurrency pool's.
    func onWorkers<T: Sendable>(_ work: @Sendable () async -> T) async -> T {
        await withTaskExecutorPreference(workers) { await work() }
    }

    /// Counts an image by what the gate decided.
    @Sendable func count(_ decision: ImageDecision) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "imgquality", metricName: "images", unitName: "total", helpText: "Images answered, by the gate's decision."),
            labels: [("decision", decision.rawValue)]
        ).increment()
    }

    /// Counts a request and records its time, by route, method and status.
    func record(route: String, method: String, status: Int, seconds: Duration) {
        registry.makeCounter(
            descriptor: MetricNameDescriptor(namespace: "imgquality", metricName: "http_requests", unitName: "total", helpText: "HTTP requests answered."),
            labels: [("route", route), ("method", method), ("status", String(status))]
        ).increment()
        registry.makeDurationHistogram(
            descriptor: MetricNameDescriptor(
                namespace: "imgquality", metricName: "http_request_duration", unitName: "seconds", helpText: "Time from a request's head to its answer."),
            labels: [("route", route)],
            buckets: [.milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30)]
        ).record(seconds)
    }
}
