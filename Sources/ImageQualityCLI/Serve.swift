// The server is left out of a build without it (Package.swift, `IMGQUALITY_SERVER=0`).
#if canImport(VisionServer)
import ArgumentParser
import DocumentStructure
import Foundation
import GatedRecognition
import Synchronization
import ImagingCore
import TesseractBackend
import TextRecognition
import VisionServer

/// `imgquality serve`: the gate and the recognizer behind Google Cloud Vision's REST API.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve Google Cloud Vision's images:annotate and files:annotate (gated Tesseract), the score record, health and metrics over HTTP.",
        discussion: """
            Routes: POST /v1/images:annotate and /v1/files:annotate (Cloud Vision v1 bodies; \
            features TEXT_DETECTION, DOCUMENT_TEXT_DETECTION, IMAGE_QUALITY; an image the gate \
            rejects is not recognized and gets FAILED_PRECONDITION with the reasons, and its \
            assessment in "imageQuality"); POST /v1/score (an image's bytes as the body; the score \
            record); GET /healthz, /readyz (200 once the recognizer is loaded), /metrics (Prometheus).

            A request beyond --workers at work and --queue waiting gets 429 with Retry-After. \
            SIGTERM or SIGINT ends the server once the requests taken in are answered. With \
            --api-key-file, requests carry a key (the key query parameter or the X-Goog-Api-Key \
            header); the server listens beyond loopback only with keys or --allow-unauthenticated.

            docs/server.md has the whole reference. Exit status: 0 after a graceful shutdown, \
            64 usage error, 69 the address cannot be listened on, 70 the server failed while serving.
            """)

    @Option(name: .long, help: ArgumentHelp("Address to listen on.", valueName: "host"))
    var host = "127.0.0.1"

    @Option(name: .long, help: ArgumentHelp("Port to listen on (0: any free port; the one taken is printed).", valueName: "port"))
    var port = 8080

    @Option(name: .long, help: ArgumentHelp("Requests worked on at once (default: the processor's cores).", valueName: "n"))
    var workers: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .long, help: ArgumentHelp("Requests that may wait for a worker before the server answers 429.", valueName: "n"))
    var queue = 32

    @Option(name: .long, help: ArgumentHelp("Largest request body (suffixes K, M, G).", valueName: "size"))
    var maxRequestSize = ByteCount(40 << 20)

    @Option(name: .long, help: ArgumentHelp("Largest image or file in a request, decoded (suffixes K, M, G).", valueName: "size"))
    var maxImageSize = ByteCount(20 << 20)

    @Option(name: .long, help: ArgumentHelp("Most images (or files) in one call.", valueName: "n"))
    var maxImages = 16

    @Option(name: .long, help: ArgumentHelp("A request's time in seconds: images not started by then get DEADLINE_EXCEEDED.", valueName: "seconds"))
    var requestTimeout: Double = 120

    @Option(name: .long, help: ArgumentHelp("A file of API keys, one per line: requests must carry one.", valueName: "file"))
    var apiKeyFile: String?

    @Flag(name: .long, help: "Listen beyond loopback without API keys.")
    var allowUnauthenticated = false

    @Flag(name: .long, help: "Recognize every image, as Cloud Vision does; the gate is still reported.")
    var noGate = false

    @Option(name: .long, help: ArgumentHelp("Log lines (one per request, on standard error): text or json.", valueName: "format"))
    var logFormat: ServerSettings.LogFormat = .text

    @OptionGroup var recognition: RecognitionFlags
    @OptionGroup var decode: DecodeFlags
    @OptionGroup var analysis: AnalysisFlags

    mutating func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port is 0 to 65535, got \(port).") }
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1, got \(workers).") }
        guard queue >= 0 else { throw ValidationError("--queue must be 0 or more, got \(queue).") }
        guard maxImages >= 1 else { throw ValidationError("--max-images must be at least 1, got \(maxImages).") }
        guard requestTimeout > 0, requestTimeout.isFinite else { throw ValidationError("--request-timeout is a number of seconds above 0.") }
        guard decode.pages == nil, decode.page == nil else {
            throw ValidationError("--pages and --page are not for serve: a files:annotate request names its pages.")
        }
        if analysis.timings { throw ValidationError("--timings is for score and gate.") }
    }

    mutating func run() async throws {
        var settings = ServerSettings()
        settings.host = host
        settings.port = port
        settings.workers = workers
        settings.queueLimit = queue
        settings.maxRequestBytes = maxRequestSize.bytes
        settings.maxImageBytes = maxImageSize.bytes
        settings.maxImages = maxImages
        settings.requestTimeout = .nanoseconds(Int64(min(requestTimeout, 1e6) * 1e9))
        settings.recognizesRejected = noGate
        settings.logFormat = logFormat
        if let apiKeyFile {
            settings.apiKeys = Set(try linesOfFile(apiKeyFile, holding: "API key"))
            guard !settings.apiKeys.isEmpty else { throw ValidationError("the API key file \(apiKeyFile) holds no key.") }
        }
        guard settings.isLoopback || !settings.apiKeys.isEmpty || allowUnauthenticated else {
            throw ValidationError("--host \(host) is beyond loopback: give --api-key-file, or --allow-unauthenticated to serve anyone who reaches it.")
        }

        let options = try recognition.recognitionOptions()
        let recognizer = TesseractRecognizer()
        var configuration = try analysis.configuration(decodeOptions: decode.decodeOptions)
        try analysis.addLayoutProbe(to: &configuration, recognizer, options: options)
        let gated = GatedTextRecognizer(recognizer: recognizer, configuration: configuration)
        RecognitionFlags.warnIfBarcodesAreNotRead()
        let server = ImageServer(
            recognizer: gated, options: options, analyzer: recognition.documentAnalyzer, settings: settings,
            prepare: { try recognizer.prepare(options) })
        let (host, port, format) = (self.host, self.port, logFormat)
        let listening = Atomic(false)
        do {
            try await server.run { bound in
                listening.store(true, ordering: .relaxed)
                let shown = host.contains(":") ? "[\(host)]" : host
                let line = format == .json
                    ? JSONValue.object([("message", .string("listening")), ("url", .string("http://\(shown):\(bound)"))]).serialized
                    : "imgquality serve: listening on http://\(shown):\(bound)"
                Terminal.write(line + "\n", to: STDERR_FILENO)
            }
        } catch {
            // 69 when the address could not be taken; 70 when the server failed after it had.
            guard listening.load(ordering: .relaxed) else {
                Terminal.write("imgquality serve: cannot serve on \(host):\(port): \(error)\n", to: STDERR_FILENO)
                throw ExitCode(69)
            }
            Terminal.write("imgquality serve: the server stopped: \(error)\n", to: STDERR_FILENO)
            throw ExitCode(70)
        }
        recognizer.releaseIdleEngines()
    }
}

extension ServerSettings.LogFormat: ExpressibleByArgument {}
#endif
