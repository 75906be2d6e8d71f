// swift-tools-version:6.0
// The fuzzing package: libFuzzer entry points for each decoder and for the whole assessment,
// kept apart from the product's build (they only link with -sanitize=fuzzer). Build and run
// them with Scripts/fuzz.sh; each executable exports LLVMFuzzerTestOneInput and gets its
// main from libFuzzer.
import PackageDescription

/// One entry point: an executable whose only source is its `LLVMFuzzerTestOneInput`.
func fuzzTarget(_ name: String, _ products: [String], extra: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: ["FuzzSupport"] + extra + products.map { .product(name: $0, package: "imgquality") })
}

let package = Package(
    name: "imgquality-fuzz",
    dependencies: [
        .package(name: "imgquality", path: "..")
    ],
    targets: [
        // Decode options chosen by the input's last byte, and the limits every target decodes with.
        .target(
            name: "FuzzSupport",
            dependencies: [.product(name: "ImageCodecs", package: "imgquality"), .product(name: "ImagingCore", package: "imgquality")]),
        // ImageDecoder on bytes that sniff as JPEG (libjpeg-turbo through the C shim).
        fuzzTarget("FuzzJPEG", ["ImageCodecs"]),
        // libFuzzer's LLVMFuzzerMutate, for a custom mutator.
        .target(name: "_CFuzzerHooks"),
        // ImageDecoder on bytes that sniff as PNG (libpng through the C shim); its mutator
        // keeps chunk CRCs right.
        fuzzTarget("FuzzPNG", ["ImageCodecs"], extra: ["_CFuzzerHooks"]),
        // ImageDecoder on bytes that sniff as TIFF (libtiff through the C shim), first or second page.
        fuzzTarget("FuzzTIFF", ["ImageCodecs"]),
        // ImageDecoder on bytes that sniff as WebP (libwebp and its demuxer): stills, animations, EXIF.
        fuzzTarget("FuzzWebP", ["ImageCodecs"]),
        // ImageDecoder on bytes that sniff as HEIF or AVIF (libheif with libde265 and dav1d or libaom).
        fuzzTarget("FuzzHEIF", ["ImageCodecs"]),
        // ImageDecoder on bytes that sniff as GIF (giflib): the first frame on its screen.
        fuzzTarget("FuzzGIF", ["ImageCodecs"]),
        // ImageDecoder on bytes that sniff as BMP (imgquality's own decoder): headers, masks, RLE.
        fuzzTarget("FuzzBMP", ["ImageCodecs"]),
        // ImageDecoder on bytes that sniff as JPEG XL (libjxl): codestreams and containers.
        fuzzTarget("FuzzJXL", ["ImageCodecs"]),
        // ImageDecoder on bytes that sniff as PDF, rendered by Poppler (the PDFPages product).
        fuzzTarget("FuzzPDF", ["ImageCodecs", "PDFPages"]),
        // ImageDecoder on bytes that sniff as camera raw (LibRaw): the preview or the development.
        fuzzTarget("FuzzRaw", ["ImageCodecs"]),
        // DataDetector on any text, and DocumentAnalyzer on any image's luma.
        fuzzTarget("FuzzDocument", ["DocumentStructure", "ImageCodecs", "ImagingCore"]),
        // Assessor.assess(.encoded(bytes, name:)) on any bytes, and the record's JSON.
        fuzzTarget("FuzzAssessment", ["QualityAssessment", "QualityGating", "ImageCodecs"]),
    ],
    swiftLanguageModes: [.v6]
)
