import ImageKernels
import ImagingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Heavy JPEG compression, read from the pixels: how coarsely the last compression on the
/// 8 × 8 grid quantized each block's mean.
///
/// A JPEG stores each 8 × 8 block's mean as its DC coefficient, DC = 8 · (mean − 128),
/// rounded to a multiple of the quantizer step q (16 in the standard table at quality 50, 2
/// at quality 95, 40 at quality 20). Decoding keeps the mean, so the means of the decoded
/// blocks sit on a lattice of spacing q / 8 levels (at a reduced decode, 1/d of the size,
/// the blocks are 8/d pixels across and keep their means). The detector reads the
/// textured blocks (standard deviation at least 1 level, no pixel at 0 or 255, where
/// clipping moves the mean) among 128 × 128 spread over the decoded luma, on the file's grid (from the
/// top left, or from the right or bottom edge when the orientation flipped it), and finds the
/// largest step q whose lattice the DCs agree with: the mean of cos(2π · DC / q) at least
/// 0.5, and q at most half the DCs' spread (values spread over one or two lattice points
/// agree with any lattice). The lattice survives a later save at a finer quality, and a PNG
/// of a JPEG; it does not survive resizing after the compression.
///
/// The evidence is a logistic model of ln `dcStep` (the model file `compression.json`, fitted
/// by `Scripts/measure/fit_camera.py` on the camera-simulator corpus's train photos).
public struct CompressionDetector: Detector {
    /// The map from evidence to confidence (the logistic function for the bundled model).
    public var mapping: LogisticMapping
    /// The log-odds of heavy compression from ln `dcStep`.
    public var evidence: DetectorModel.LinearModel

    /// What the detector reads of its model.
    public static let modelRequirements = DetectorModel.Requirements(
        evidence: ["compression": ["logDCStep"]], mapping: true, thresholds: ["compression"])

    /// - Parameter model: a model checked against `modelRequirements`; the bundled one by default.
    public init(model: DetectorModel = ModelSet.bundled["compression"]) {
        mapping = model.mapping!
        evidence = model.evidence("compression")
    }

    public static let descriptor = MetricDescriptor(
        name: "compression",
        meaning: "confidence that heavy JPEG compression spoils the image",
        direction: "defect",
        fields: CompressionObservation.descriptorFields,
        cost: "the means of at most 128 × 128 blocks spread over the decoded luma, for each grid the orientation allows (at most 4)",
        caveats: "Reads the last coarse compression on the image's own 8 × 8 grid: an image resized or cropped off the grid after it was compressed shows none. A photo with no textured block (a flat graphic) is not judged.",
        calibration: .init(measure: "evidence", meaning: "log-odds of heavy compression from ln dcStep before mapping"))

    /// At most this many blocks are read along each axis, evenly spaced over the frame.
    static let blocksAcross = 128
    /// Largest DC step tried (the standard table's step at quality 10 is 80).
    static let largestStep = 160
    /// At most this many blocks enter the lattice search (evenly spread over those kept):
    /// the agreement of 2 048 random phases has a standard deviation of 0.016.
    static let blockBudget = 2048
    /// Fewer textured blocks than this judge nothing.
    static let minimumBlocks = 64

    public func analyze(_ context: AnalysisContext) -> CompressionObservation {
        context.measured("compression") { analyze(context.image) }
    }

    public func analyze(_ image: AnalysisImage) -> CompressionObservation {
        let period = 8 / image.detailScale
        let block = Int(period.rounded())
        // A decode whose blocks are not whole pixels, or single pixels, shows no lattice to read.
        guard block >= 2, abs(period - Double(block)) < 0.01 else {
            return CompressionObservation(confidence: 0, dcStep: 1, quality: 100, agreement: 0, blocks: 0, evidence: 0)
        }
        let plane = image.decodedLuma
        // The grid starts at the top left as stored; an orientation that flipped an axis
        // moves its start to that axis's far edge. Off the grid the means sit on no lattice,
        // so the first grid with one is the file's.
        let phasesX = Set([0, plane.width % block]).sorted(), phasesY = Set([0, plane.height % block]).sorted()
        var best = Lattice(step: 1, agreement: 0, blocks: 0)
        search: for py in phasesY {
            for px in phasesX {
                let lattice = Self.lattice(plane, block: block, phaseX: px, phaseY: py)
                if lattice.blocks > best.blocks || lattice.step > 1 { best = lattice }
                if lattice.step > 1 { break search }
            }
        }
        guard best.blocks >= Self.minimumBlocks else {
            return CompressionObservation(confidence: 0, dcStep: 1, quality: 100, agreement: 0, blocks: best.blocks, evidence: 0)
        }
        let evidence = self.evidence.predict { _ in log(Double(best.step)) }
        return CompressionObservation(
            confidence: mapping(evidence), dcStep: Double(best.step), quality: Double(Self.quality(forDCStep: best.step)),
            agreement: best.agreement, blocks: best.blocks, evidence: evidence)
    }

    /// The largest DC step the textured blocks agree with, their agreement with it, and the blocks read.
    struct Lattice: Equatable {
        var step: Int
        var agreement: Double
        var blocks: Int
    }

    /// The lattice of the blocks of `block` pixels on the grid that starts at (`phaseX`, `phaseY`):
    /// at most `blocksAcross` × `blocksAcross` of them, evenly spaced over `plane`.
    static func lattice(_ plane: PixelBuffer<UInt8>, block: Int, phaseX: Int, phaseY: Int) -> Lattice {
        let columns = max(0, plane.width - phaseX) / block, rows = max(0, plane.height - phaseY) / block
        guard columns > 0, rows > 0 else { return Lattice(step: 1, agreement: 0, blocks: 0) }
        let everyColumn = max(1, columns / blocksAcross), everyRow = max(1, rows / blocksAcross)
        let area = block * block
        // k = 8 · sum − 1024 · area = area · DC: an integer whatever the block size.
        var keys: [Int32] = []
        keys.reserveCapacity(blocksAcross * blocksAcross)
        plane.withUnsafeBufferPointer { pixels in
            let stride = plane.rowStride
            for row in Swift.stride(from: 0, to: rows, by: everyRow) {
                for column in Swift.stride(from: 0, to: columns, by: everyColumn) {
                    let origin = (phaseY + row * block) * stride + phaseX + column * block
                    let moments = BlockMoments(pixels, origin: origin, stride: stride, block: block)
                    // Textured (variance ≥ 1 level²) and unclipped.
                    guard moments.low > 0, moments.high < 255, area * moments.squares - moments.sum * moments.sum >= area * area else { continue }
                    keys.append(Int32(8 * moments.sum - 1024 * area))
                }
            }
        }
        let kept = keys.count
        guard kept >= minimumBlocks else { return Lattice(step: 1, agreement: 0, blocks: kept) }
        // The DCs' spread bounds the steps that can be told from chance.
        var mean = 0.0, meanSquare = 0.0
        for key in keys {
            let dc = Double(key) / Double(area)
            mean += dc
            meanSquare += dc * dc
        }
        mean /= Double(kept)
        meanSquare /= Double(kept)
        let spread = max(0, meanSquare - mean * mean).squareRoot()
        if kept > blockBudget {
            keys = (0..<blockBudget).map { keys[$0 * kept / blockBudget] }
        }
        let largest = min(largestStep, Int((spread / 2).rounded(.down)))
        guard largest >= 2 else { return Lattice(step: 1, agreement: 0, blocks: kept) }
        let table = cosines, bins = Double(table.count), mask = table.count - 1
        let phases = keys.map(Double.init)
        /// The mean of cos(2π · DC / step) over the first `count` phases (evenly spread).
        func agreement(_ step: Int, over count: Int) -> Double {
            // The phase of each DC on the lattice, in turns: k / (step · area), its fraction.
            let turns = 1 / Double(step * area)
            var total = 0.0
            for index in 0..<count {
                let phase = phases[index * phases.count / count] * turns
                total += table[Int((phase - phase.rounded(.down)) * bins) & mask]
            }
            return total / Double(count)
        }
        // A first look at 256 blocks (their agreement's standard deviation is 0.044 where the
        // phases are random) passes the steps within 0.15 of the bar; all the blocks decide.
        let glance = min(256, phases.count)
        for step in stride(from: largest, through: 2, by: -1) where agreement(step, over: glance) >= 0.35 {
            let full = agreement(step, over: phases.count)
            if full >= 0.5 { return Lattice(step: step, agreement: full, blocks: kept) }
        }
        return Lattice(step: 1, agreement: 0, blocks: kept)
    }

    /// cos(2π · i / 4096): the phase of a DC on a lattice, to 1/4096 of a turn.
    static let cosines = (0..<4096).map { cos(2 * Double.pi * Double($0) / 4096) }

    /// The highest quality (1–100) of the standard JPEG tables whose luminance DC step
    /// (16 scaled by the quality as libjpeg scales it) is at least `step`.
    static func quality(forDCStep step: Int) -> Int {
        (1...100).reversed().first { standardDCStep(quality: $0) >= step } ?? 1
    }

    /// libjpeg's luminance DC step at `quality`: 16 scaled by 5000/q below 50, by 200 − 2q from 50.
    static func standardDCStep(quality: Int) -> Int {
        let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
        return min(255, max(1, (16 * scale + 50) / 100))
    }
}

/// The compression detector's answer.
public struct CompressionObservation: DetectorObservation {
    public static let photoCriterion: PhotoCriterion? = PhotoCriterion(
        measure: "compression confidence", words: "heavily compressed",
        explanation: "a photo's compression confidence (how coarsely JPEG quantized its blocks) is above the policy's compression threshold",
        defaultThreshold: ModelSet.bundled.threshold("compression", of: "compression"))

    /// 0 = fine, 1 = clearly over-compressed.
    public var confidence = 0.0
    /// The DC quantizer step of the last coarse compression (1: none coarser found).
    public var dcStep = 0.0
    /// The highest quality (1–100) of the standard tables whose DC step is at least `dcStep`.
    public var quality = 0.0
    /// The mean of cos(2π · DC / dcStep) over the blocks (0 when no step was found).
    public var agreement = 0.0
    /// Textured blocks read.
    public var blocks = 0.0
    /// Log-odds of heavy compression before mapping.
    public var evidence = 0.0

    public init() {}

    public init(confidence: Double, dcStep: Double, quality: Double, agreement: Double, blocks: Int, evidence: Double) {
        self.confidence = confidence
        self.dcStep = dcStep
        self.quality = quality
        self.agreement = agreement
        self.blocks = Double(blocks)
        self.evidence = evidence
    }

    public static let fields: [ObservationField<Self>] = [
        .number("confidence", \.confidence, "confidence that heavy JPEG compression spoils the image: 0 fine, 1 over-compressed", units: "probability", range: 0...1),
        .number("dcStep", \.dcStep, "DC quantizer step of the last coarse JPEG compression, read from the lattice of the textured 8×8 blocks' means (1: none coarser found)", units: "DCT units", range: 0...255),
        .number("quality", \.quality, "the highest quality (1-100) of the standard JPEG tables whose DC step is at least dcStep: the image was saved at about this quality or below", units: "JPEG quality", range: 0...100),
        .number("agreement", \.agreement, "mean of cos(2π·DC/dcStep) over the blocks: 1 every block on the lattice", units: "fraction", range: -1...1),
        .number("blocks", \.blocks, "textured, unclipped blocks read (fewer than 64 judge nothing)", units: "count", range: 0...1_000_000),
        .number("evidence", \.evidence, "log-odds of heavy compression from ln dcStep, before mapping", units: "log-odds", range: -100...100),
    ]
}
