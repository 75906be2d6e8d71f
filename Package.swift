// swift-tools-version:6.1
import PackageDescription

// MARK: - Public API

let products: [Product] = [
    .executable(name: "imgquality", targets: ["imgquality"]),
    .library(name: "ImagingCore", targets: ["ImagingCore"]),
    .library(name: "ImageCodecs", targets: ["ImageCodecs"]),
    .library(name: "ImageKernels", targets: ["ImageKernels"]),
    .library(name: "QualityMetrics", targets: ["QualityMetrics"]),
    .library(name: "QualityGating", targets: ["QualityGating"]),
    .library(name: "QualityAssessment", targets: ["QualityAssessment"]),
    .library(name: "QualityCalibration", targets: ["QualityCalibration"]),
    // The recognizer seam alone: a third-party backend links no codec or metric.
    .library(name: "TextRecognition", targets: ["TextRecognition"]),
    .library(name: "GatedRecognition", targets: ["GatedRecognition"]),
    // Paragraphs, lists, tables, barcodes and detected data from a page and its recognized words.
    .library(name: "DocumentStructure", targets: ["DocumentStructure"]),
    // Separate so the core libraries never need libtesseract.
    .library(name: "TesseractBackend", targets: ["TesseractBackend"]),
    // PDF pages through Poppler (GPL): separate so that no core library links it; a program
    // that links this product is, as distributed, under the GPL (README, Licence).
    .library(name: "PDFPages", targets: ["PDFPages"]),
]

// MARK: - System libraries (C stays at the edges)

let systemLibraries: [Target] = [
    .systemLibrary(
        name: "CJPEG", pkgConfig: "libjpeg",
        providers: [.apt(["libjpeg62-turbo-dev"])]),
    .systemLibrary(
        name: "CPNG", pkgConfig: "libpng",
        providers: [.apt(["libpng-dev"])]),
    .systemLibrary(
        name: "CTIFF", pkgConfig: "libtiff-4",
        providers: [.apt(["libtiff-dev"])]),
    // libwebp and its demuxer (animation, EXIF): a plain C API of status codes, called from Swift.
    .systemLibrary(
        name: "CWebP", pkgConfig: "libwebpdemux",
        providers: [.apt(["libwebp-dev"])]),
    // giflib: error codes, no longjmp (Debian ships no pkg-config file for it).
    .systemLibrary(name: "CGIF", providers: [.apt(["libgif-dev"])]),
]

// MARK: - Implementation details (no stable API)

let implementation: [Target] = [
    // Every libjpeg/libpng/libtiff call, with setjmp confined to C.
    .target(
        name: "_CImagingShims",
        dependencies: ["CJPEG", "CPNG", "CTIFF"]),
    // Opening a shared library on first use and forwarding its functions (a header of macros),
    // for the loaders below.
    .target(name: "_CLibraryLoader"),
    // libtesseract's C API, opened with dlopen when first used instead of linked, so a process
    // that recognizes nothing never loads it (headers from libtesseract-dev).
    .target(name: "CTesseract", dependencies: ["_CLibraryLoader"], linkerSettings: [.linkedLibrary("dl")]),
    // libheif's C API (HEIC through libde265, AVIF through dav1d or libaom), opened with dlopen
    // when a HEIF or AVIF file is first decoded: Debian's libheif brings its encoders, libx265
    // (GPL) among them, which no process or library should load for nothing (headers from
    // libheif-dev).
    .target(name: "CHEIF", dependencies: ["_CLibraryLoader"], linkerSettings: [.linkedLibrary("dl")]),
    // Poppler's C++ API (poppler-cpp, GPL) behind a C interface that no exception crosses,
    // for the PDFPages product only (headers from libpoppler-cpp-dev).
    .target(name: "_CPDFShim", linkerSettings: [.linkedLibrary("poppler-cpp")]),
    // LibRaw (thread-safe libraw_r) run in a child process, so a file it crashes on ends only
    // that child; opened with dlopen when a raw file is first read (headers from libraw-dev).
    .target(name: "_CRawWorker", dependencies: ["_CLibraryLoader"], linkerSettings: [.linkedLibrary("dl")]),
    // ZBar's C API (barcodes and QR codes), opened with dlopen when a page's barcodes are first
    // read: linked, it and libX11, libv4l2 and D-Bus would load into every process (headers
    // from libzbar-dev).
    .target(name: "CZBar", dependencies: ["_CLibraryLoader"], linkerSettings: [.linkedLibrary("dl")]),
    // libjxl's decoder (a plain C API of events and status codes, called from Swift), opened
    // with dlopen when a JPEG XL file is first decoded (headers from libjxl-dev).
    .target(name: "CJXL", dependencies: ["_CLibraryLoader"], linkerSettings: [.linkedLibrary("dl")]),
]

// MARK: - Code generation for the pixel work

// `IMGQUALITY_CPU=haswell swift build …` compiles the targets that touch every pixel for that
// CPU (`swiftc -target-cpu`): AVX2 shuffles and 32-bit multiplies instead of SSE2 emulations,
// the same results bit for bit (Swift never fuses a multiply and an add by itself). Unset,
// the build runs on any x86-64 or arm64 machine and the package stays usable as a dependency
// (SwiftPM refuses unsafe flags in a versioned dependency). `Scripts/cpu-level.sh` names this
// machine's level; the project's scripts set it.
let cpu = Context.environment["IMGQUALITY_CPU"] ?? ""
let pixelSettings: [SwiftSetting] = cpu.isEmpty || cpu == "generic" ? [] : [.unsafeFlags(["-target-cpu", cpu])]

// MARK: - Libraries, by layer

let libraries: [Target] = [
    // Layer 0: pixel buffers, sizes, limits, errors.
    .target(name: "ImagingCore"),
    // Layer 0: the JSON values records, schemas and responses are written as (members in
    // order, numbers rounded as records print them). Internal: the modules that hand out
    // such values re-export it.
    .target(name: "JSONSupport"),
    // Layer 1: JPEG/PNG/TIFF/WebP/HEIF/AVIF/GIF decoding, format sniffing, EXIF orientation.
    .target(
        name: "ImageCodecs", dependencies: ["ImagingCore", "_CImagingShims", "CWebP", "CHEIF", "CGIF", "CJXL", "_CRawWorker"], swiftSettings: pixelSettings),
    // Layer 1: PDF pages rendered by Poppler (GPL), registered into ImageDecoder by the programs
    // that want them; no other library links it.
    .target(name: "PDFPages", dependencies: ["ImageCodecs", "ImagingCore", "_CPDFShim"]),
    // Layer 1: SIMD kernels, each with its scalar reference.
    .target(name: "ImageKernels", dependencies: ["ImagingCore"], swiftSettings: pixelSettings),
    // Layer 2: detectors with descriptors and 0–1 confidences; their fitted models as data
    // (Models/*.json, copied beside every binary built).
    .target(
        name: "QualityMetrics", dependencies: ["ImagingCore", "ImageCodecs", "ImageKernels"],
        resources: [.copy("Models")], swiftSettings: pixelSettings),
    // Layer 3: the gate (policy, decisions with reasons), profiles.
    .target(name: "QualityGating", dependencies: ["QualityMetrics", "ImageCodecs", "ImagingCore"]),
    // Layer 3: the assessment pipeline above the gate (decode once, analyse, gate), the record
    // and its schema, Vision-style requests, and the batch engine.
    .target(name: "QualityAssessment", dependencies: ["QualityGating", "QualityMetrics", "ImageCodecs", "ImagingCore", "JSONSupport"]),
    // Layer 4: reports a person reads: the contact sheet, SVG plots, thumbnails from decoded
    // pixels, number formatting and command quoting, shared with the calibration report.
    .target(
        name: "QualityReports",
        dependencies: ["DocumentStructure", "TextRecognition", "QualityAssessment", "QualityGating", "QualityMetrics", "ImageCodecs", "ImageKernels", "ImagingCore"]),
    // Layer 4: ROC/PR analysis, threshold choice, logistic fits, the calibration report and profiles.
    .target(
        name: "QualityCalibration",
        dependencies: [
            "QualityReports", "QualityAssessment", "QualityGating", "QualityMetrics", "ImageCodecs", "ImageKernels", "ImagingCore",
            .product(name: "SwiftCSV", package: "SwiftCSV"),
        ]),
    // Layer 1: the TextRecognizer seam, its conformance checks, a fake, and the command backend.
    .target(name: "TextRecognition", dependencies: ["ImagingCore"]),
    // Layer 2: document structure from a page's pixels and its recognized words.
    .target(name: "DocumentStructure", dependencies: ["TextRecognition", "ImageKernels", "ImagingCore", "CZBar"], swiftSettings: pixelSettings),
    // Layer 4: the gated flow: assess, then recognize what passes.
    .target(
        name: "GatedRecognition",
        dependencies: ["TextRecognition", "DocumentStructure", "ImageKernels", "QualityAssessment", "QualityGating", "QualityMetrics", "ImageCodecs", "ImagingCore", "JSONSupport"]),
    // Layer 4: the Tesseract backend (libtesseract's C API).
    .target(name: "TesseractBackend", dependencies: ["TextRecognition", "ImageKernels", "ImagingCore", "CTesseract"]),
]

// `IMGQUALITY_SERVER=0 swift build …` leaves out the server: the VisionServer module, its tests,
// `imgquality serve`, and the Hummingbird and SwiftNIO code they bring (half of the sanitizer
// build's time: 549 s with them, 276 s without, one day). Scripts/sanitize.sh builds so: the
// server's module holds no unsafe code for the sanitizers to check, and its tests run in the
// main pass.
let withServer = Context.environment["IMGQUALITY_SERVER"] != "0"

let server: [Target] = [
    // Layer 5: the HTTP server: Google Cloud Vision's images:annotate and files:annotate, the
    // score record, health, readiness and Prometheus metrics (Hummingbird).
    .target(
        name: "VisionServer",
        dependencies: [
            "GatedRecognition", "DocumentStructure", "TextRecognition", "QualityAssessment", "QualityGating", "ImageCodecs", "ImagingCore",
            "JSONSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ]),
]

let commandLine: [Target] = [
    // Layer 5: the command line, a thin shell over the libraries.
    .target(
        name: "ImageQualityCLI",
        dependencies: [
            "ImagingCore", "ImageCodecs", "QualityMetrics", "QualityGating", "QualityAssessment", "QualityReports", "QualityCalibration",
            "TextRecognition", "GatedRecognition", "TesseractBackend", "JSONSupport", "_CImagingShims", "PDFPages",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ] + (withServer ? ["VisionServer"] : [])),
    .executableTarget(
        name: "imgquality", dependencies: ["ImageQualityCLI", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
]

// MARK: - Unit test bundles

let tests: [Target] = [
    .target(name: "_ImagingTestSupport", dependencies: ["ImagingCore", "TextRecognition"], path: "Tests/_ImagingTestSupport"),
    .testTarget(name: "ImagingCoreTests", dependencies: ["ImagingCore", "_ImagingTestSupport"]),
    .testTarget(name: "ImageKernelsTests", dependencies: ["ImageKernels", "ImagingCore", "_ImagingTestSupport"]),
    .testTarget(
        name: "QualityMetricsTests",
        dependencies: ["QualityMetrics", "QualityGating", "QualityAssessment", "ImageKernels", "ImagingCore", "_ImagingTestSupport"]),
    .testTarget(
        name: "QualityCalibrationTests",
        dependencies: ["QualityCalibration", "QualityReports", "QualityAssessment", "QualityGating", "QualityMetrics", "_ImagingTestSupport"]),
    .testTarget(
        name: "QualityGatingTests",
        dependencies: ["QualityGating", "QualityMetrics", "ImageCodecs", "ImagingCore", "JSONSupport", "_ImagingTestSupport"]),
    .testTarget(name: "QualityReportsTests", dependencies: ["QualityReports", "_ImagingTestSupport"]),
    .testTarget(
        name: "QualityAssessmentTests",
        dependencies: ["QualityAssessment", "QualityGating", "QualityMetrics", "ImageCodecs", "ImagingCore", "_ImagingTestSupport"]),
    .testTarget(
        name: "DocumentStructureTests",
        dependencies: ["DocumentStructure", "TextRecognition", "ImageCodecs", "ImageKernels", "ImagingCore", "_ImagingTestSupport"]),
    .testTarget(name: "TextRecognitionTests", dependencies: ["TextRecognition", "ImagingCore", "_ImagingTestSupport"]),
    .testTarget(
        name: "GatedRecognitionTests",
        dependencies: [
            "GatedRecognition", "DocumentStructure", "TextRecognition", "QualityAssessment", "QualityGating", "QualityMetrics", "ImageCodecs",
            "ImagingCore", "_ImagingTestSupport",
        ]),
    .testTarget(
        name: "TesseractBackendTests",
        dependencies: [
            "TesseractBackend", "GatedRecognition", "TextRecognition", "QualityAssessment", "QualityGating", "ImageCodecs", "ImagingCore",
            "_ImagingTestSupport",
        ]),
    .testTarget(name: "ImageCodecsTests", dependencies: ["ImageCodecs", "ImagingCore", "_ImagingTestSupport"]),
    .testTarget(name: "PDFPagesTests", dependencies: ["PDFPages", "QualityAssessment", "ImageCodecs", "ImagingCore", "_ImagingTestSupport"]),
    .testTarget(
        name: "ImageQualityCLITests",
        dependencies: ["ImageQualityCLI", "imgquality", "QualityAssessment", "QualityReports", "ImageCodecs", "ImagingCore", "_ImagingTestSupport"]),
    // The long runs, apart from the unit tests: real-photo ladders, the hostile corpus, the
    // 5 000-input batch. `Scripts/test.sh` runs them once, after the unit tests.
    .testTarget(
        name: "IntegrationTests",
        dependencies: ["imgquality", "QualityMetrics", "QualityAssessment", "QualityGating", "ImageCodecs", "ImagingCore", "_ImagingTestSupport"]),
]

let package = Package(
    name: "imgquality",
    products: products,
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/swiftcsv/SwiftCSV", from: "0.10.0"),
        // The server (`imgquality serve`): Hummingbird without its optional traits (configuration
        // files, full Foundation), Prometheus for /metrics. All Apache-2.0.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: systemLibraries + implementation + libraries + commandLine + tests
        + (withServer ? server + [.testTarget(name: "VisionServerTests", dependencies: ["VisionServer"])] : []),
    swiftLanguageModes: [.v6]
)
