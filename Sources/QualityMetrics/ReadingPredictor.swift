import Foundation
import ImagingCore

/// A recognizer's own, cheap look at a page: where its layout analysis finds lines of text.
///
/// Recognizers fail on whole pages for reasons no image measure sees: Tesseract's page
/// segmentation can take a photographed page for a picture and lay out no text at all. Its
/// layout analysis, without recognition, shows that at a fraction of the cost of reading.
/// `RecognizerLayoutProbe` (GatedRecognition) makes one of any `TextLayoutAnalyzing`
/// recognizer (Tesseract's, or the fake one tests script).
public protocol TextLayoutProbe: Sendable {
    /// What the record names the probe by, e.g. `tesseract layout (rus)`.
    var name: String { get }
    /// The boxes of the text lines the recognizer's layout analysis finds in `plane`, in its pixels.
    func textLines(in plane: PixelBuffer<UInt8>) throws -> [PixelRect]
}

/// What a layout probe found on a page, set against what `TextFinder` found there.
public struct LayoutProbeResult: Sendable, Equatable, Codable {
    /// The probe's name.
    public var probe: String
    /// Text lines the recognizer laid out.
    public var lines: Int
    /// Characters those lines hold, estimated from their boxes: width over half the height
    /// (a character's advance is about half a line's height).
    public var characters: Double
    /// Those characters over the characters `TextFinder` found (`text.characters`), at most
    /// `ReadingPredictor.largestLaidOutShare`: below 1, text the finder sees that the
    /// recognizer will not read.
    public var laidOutShare: Double
    /// Wall time of the probe, milliseconds; nil unless stages are timed (`--timings`), so
    /// records stay the same from run to run.
    public var milliseconds: Double?
    /// Why the probe gave nothing, when it failed (the prediction then uses the image alone).
    public var error: String?

    public init(probe: String, lines: Int, characters: Double, laidOutShare: Double, milliseconds: Double? = nil, error: String? = nil) {
        self.probe = probe
        self.lines = lines
        self.characters = characters
        self.laidOutShare = laidOutShare
        self.milliseconds = milliseconds
        self.error = error
    }

    /// Runs `probe` on `plane`, a page whose text `text` describes; with `timed`, the result
    /// holds its wall time. A probe that throws gives a result with its error.
    public static func run(_ probe: any TextLayoutProbe, on plane: PixelBuffer<UInt8>, text: TextObservation, timed: Bool = false) -> Self {
        let clock = ContinuousClock()
        let start = clock.now
        var result: Self
        do {
            let lines = try probe.textLines(in: plane)
            let characters = lines.reduce(0.0) { $0 + Double($1.width) / (0.5 * Double(max(1, $1.height))) }
            result = Self(
                probe: probe.name, lines: lines.count, characters: characters,
                laidOutShare: ReadingPredictor.laidOutShare(laidOut: characters, found: text.characters), milliseconds: nil)
        } catch {
            result = Self(probe: probe.name, lines: 0, characters: 0, laidOutShare: 0, milliseconds: nil, error: "\(error)")
        }
        if timed { result.milliseconds = (clock.now - start).milliseconds }
        return result
    }
}

/// The expected word accuracy of the configured recognizer on a page: a logistic model of a
/// few measures, each entering as it is, through a monotone curve of it
/// (`DetectorModel.Shape`), or through boosted regression trees monotone in each measure
/// (`DetectorModel.TreeNode`), fitted on the generated document sets
/// (`Scripts/measure/fit_pages.py`, model `Models/text.json`).
///
/// Two models, one without and one with the layout probe: `accuracy` weighs some of the
/// image's measures (`measures(_:probe:)`), `accuracyWithLayout` may also weigh the probe's
/// (`probeMeasures`): `logLaidOutShare`, the log of `LayoutProbeResult.laidOutShare`, and
/// `logLaidOutLineLength`, the log of the characters a laid-out line holds on average (a
/// recognizer that finds the page's lines lays them out whole; one that does not finds
/// fragments). Which measures each weighs
/// is the fit's choice, written in the model file; the bundled model's `fit` says how.
///
/// Each model carries a reference (the measures of pages that read well); a prediction's
/// shortfall is put down to the measure that, set to the reference's value, would raise the
/// prediction most.
public struct ReadingPredictor: Sendable, Equatable {
    public var imageModel: DetectorModel.LinearModel
    public var layoutModel: DetectorModel.LinearModel

    /// The measures each model may weigh, by evidence name (what `TextDetector`'s model holds
    /// some of).
    public static let measuresByModel: [String: [String]] = [
        "accuracy": imageMeasures,
        "accuracyWithLayout": imageMeasures + probeMeasures,
    ]
    /// The names of the image's measures, as `measures(_:probe:)` gives them.
    public static let imageMeasures = [
        "logLegibility", "skew", "logSoftEdgeOverXHeight", "logXHeight", "logXHeightP10", "logLineBlur", "logLineBlurP90",
        "lineContrast", "lineContrastP10", "contrast", "logLineNoise", "logSkewSpread", "ungrouped", "logEdgeAnisotropy",
        "binarized", "logBinarized", "logXHeightSpread", "logLineBlurSpread", "lineContrastSpread", "logMarkOverXHeight",
    ]
    /// The names of the layout probe's measures, as `measures(_:probe:)` gives them.
    public static let probeMeasures = ["logLaidOutShare", "logLaidOutLineLength"]
    /// Legibility below this is taken as this: under it nothing is read anyway, and the log
    /// must stay finite.
    public static let smallestLegibility = 0.5
    /// A probe can lay out more characters than the finder saw (it takes in marks the finder
    /// leaves); past this share that says nothing more.
    public static let largestLaidOutShare = 1.5
    /// The share taken for a probe that laid out nothing, keeping the log finite.
    public static let smallestLaidOutShare = 0.01

    public init(imageModel: DetectorModel.LinearModel, layoutModel: DetectorModel.LinearModel) {
        self.imageModel = imageModel
        self.layoutModel = layoutModel
    }

    public init(model: DetectorModel) {
        imageModel = model.evidence("accuracy")
        layoutModel = model.evidence("accuracyWithLayout")
    }

    /// Whether the layout model weighs a measure only the probe gives: when it does not,
    /// running the probe would change nothing, and the assessor does not run it.
    public var weighsProbe: Bool {
        layoutModel.measures.contains { Self.probeMeasures.contains($0) }
    }

    /// The bundled text model's predictor.
    public static let bundled = ReadingPredictor(model: ModelSet.bundled["text"])

    /// The laid-out share of `laidOut` characters against `found`.
    public static func laidOutShare(laidOut: Double, found: Double) -> Double {
        guard found > 0 else { return laidOut > 0 ? largestLaidOutShare : 0 }
        return min(largestLaidOutShare, laidOut / found)
    }

    /// The measures of a page, by name: sizes, widths and ratios as logs (floored so the log
    /// stays finite where a measure reads 0), levels in hundreds, angles in degrees, shares as
    /// they are. `Scripts/measure/fit_pages.py` computes the same from the record.
    public static func measures(_ text: TextObservation, probe: LayoutProbeResult?) -> [String: Double] {
        var values = [
            "logLegibility": log(max(text.legibility, smallestLegibility)),
            "skew": text.skew,
            "logSoftEdgeOverXHeight": log(max(text.softEdgeWidth / max(text.xHeight, 1), 0.01)),
            "logXHeight": log(max(text.xHeight, 1)),
            "logXHeightP10": log(max(text.xHeightP10, 1)),
            "logLineBlur": log(max(text.lineBlur, 0.02)),
            "logLineBlurP90": log(max(text.lineBlurP90, 0.02)),
            "lineContrast": text.lineContrast / 100,
            "lineContrastP10": text.lineContrastP10 / 100,
            "contrast": text.contrast / 100,
            "logLineNoise": log(max(text.lineNoise, 0.003)),
            "logSkewSpread": log(text.skewSpread + 0.1),
            "ungrouped": text.ungrouped,
            "logEdgeAnisotropy": log(max(text.edgeAnisotropy, 1)),
            "binarized": text.binarized,
            "logBinarized": log(max(text.binarized, 0.02)),
            // How unevenly the lines are printed, focused and sized across the page (light
            // falling off, a tilted page's depth of field, perspective): median against the
            // worst tenth.
            "logXHeightSpread": log(max(text.lineXHeight, 1) / max(text.xHeightP10, 1)),
            "logLineBlurSpread": log(max(text.lineBlurP90, 0.02) / max(text.lineBlur, 0.02)),
            "lineContrastSpread": (text.lineContrast - text.lineContrastP10) / 100,
            // The print the lines left, when smaller than what they took (a heading found, the
            // small print not): at most 0.
            "logMarkOverXHeight": min(0, log(max(text.markHeight, 1) / max(text.xHeight, 1))),
        ]
        if let probe, probe.error == nil {
            values["logLaidOutShare"] = log(max(probe.laidOutShare, smallestLaidOutShare))
            // A probe that laid out nothing holds lines of one character, keeping the log finite.
            values["logLaidOutLineLength"] = log(max(1, probe.characters / Double(max(1, probe.lines))))
        }
        return values
    }

    /// One prediction: the accuracy, the model used, and the measure that lowered it most.
    public struct Prediction: Sendable, Equatable {
        public var accuracy: Double
        /// Whether the layout probe's model made it.
        public var usedLayout: Bool
        /// The measure that, were it alone at the reference's value, would raise the
        /// prediction most, and by how much (log-odds); nil when none would raise it.
        public var mainShortfall: (measure: String, logOdds: Double)?

        public static func == (a: Prediction, b: Prediction) -> Bool {
            a.accuracy == b.accuracy && a.usedLayout == b.usedLayout && a.mainShortfall?.measure == b.mainShortfall?.measure
                && a.mainShortfall?.logOdds == b.mainShortfall?.logOdds
        }
    }

    /// The prediction for a page; with the layout model when a probe result without error is
    /// given and the layout model weighs what it measured (a probe run only to be recorded,
    /// `Assessor.Configuration.probesEveryDocument`, changes no prediction).
    public func predict(_ text: TextObservation, probe: LayoutProbeResult?) -> Prediction {
        let values = Self.measures(text, probe: probe)
        let usedLayout = values["logLaidOutShare"] != nil && weighsProbe
        let model = usedLayout ? layoutModel : imageModel
        let measure = { (name: String) in values[name] ?? 0 }
        let logit = model.predict(measure)
        let trees = model.treesValue(measure)
        // What each measure costs: the log-odds the page would gain were that measure alone
        // at the reference's value (its term's difference, and the trees' where they read it).
        var shortfall: (measure: String, logOdds: Double)?
        for name in model.measures.sorted() {
            guard let reference = model.reference?[name] else { continue }
            var loss = model.term(name, reference) - model.term(name, measure(name))
            if model.trees != nil {
                loss += model.treesValue { $0 == name ? reference : measure($0) } - trees
            }
            if loss > 0, loss > (shortfall?.logOdds ?? 0) { shortfall = (name, loss) }
        }
        return Prediction(accuracy: 1 / (1 + exp(-logit)), usedLayout: usedLayout, mainShortfall: shortfall)
    }
}
