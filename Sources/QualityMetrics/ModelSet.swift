import Foundation
import ImagingCore

/// The detector models in force, by detector name: the bundled ones, or those of a folder.
///
/// The bundled models are the files in `Sources/QualityMetrics/Models/`, which the package
/// copies beside every binary it builds (SwiftPM's resource folder
/// `imgquality_QualityMetrics.resources`) and `Scripts/install.sh` copies to
/// `PREFIX/share/imgquality/models`. `bundled` looks, in order, in the folder named by
/// `IMGQUALITY_MODELS`, beside the running executable, under `../share/imgquality/models`
/// from it, and in the source tree the package was built from.
public struct ModelSet: Sendable, Equatable {
    public var models: [String: DetectorModel]

    /// What each detector reads of its model, by detector name.
    public static let requirements: [String: DetectorModel.Requirements] = [
        "aesthetic": AestheticsDetector.modelRequirements,
        "blur": BlurDetector.modelRequirements,
        "smudge": SmudgeDetector.modelRequirements,
        "exposure": ExposureDetector.modelRequirements,
        "text": TextDetector.modelRequirements,
        "noise": NoiseDetector.modelRequirements,
        "compression": CompressionDetector.modelRequirements,
    ]

    public init(models: [String: DetectorModel]) {
        self.models = models
    }

    /// The model of `detector`.
    /// - Precondition: the set was loaded by `load(directory:)`, which requires every
    ///   detector's model.
    public subscript(_ detector: String) -> DetectorModel {
        guard let model = models[detector] else { preconditionFailure("no model for the \(detector) detector") }
        return model
    }

    /// The default threshold a model sets for the policy key `key`.
    /// - Precondition: the model declares it (`load(directory:)` checks the bundled ones).
    public func threshold(_ key: String, of detector: String) -> Double {
        guard let threshold = self[detector].thresholds[key] else {
            preconditionFailure("the \(detector) model sets no threshold \"\(key)\"")
        }
        return threshold.value
    }

    /// Reads one model file and checks it against its detector.
    /// - Throws: `ModelError`: `unreadable` when the file cannot be read, `invalid` when it
    ///   is not a model of a known detector or does not fit it.
    public static func loadModel(contentsOf path: String) throws(ModelError) -> DetectorModel {
        let bytes: [UInt8]
        do {
            bytes = try FileAccess.readAll(path)
        } catch {
            throw ModelError(.unreadable, "cannot read the model \(path): \(error.reason)")
        }
        let model = try DetectorModel.decode(Data(bytes), source: path)
        guard let requirements = requirements[model.detector] else {
            let known = requirements.keys.sorted().joined(separator: ", ")
            throw ModelError(.invalid, "\(path) is a model of unknown detector \"\(model.detector)\" (known: \(known))")
        }
        return try model.validated(as: requirements, source: path)
    }

    /// Reads `<detector>.json` for every detector from `directory`. A folder is the set a
    /// detector falls back on for the evidence a model file given alone may leave out
    /// (`Requirements.optionalEvidence`), so its models must have all of it.
    /// - Throws: `ModelError` naming the first file missing or wrong.
    public static func load(directory: String) throws(ModelError) -> ModelSet {
        var models: [String: DetectorModel] = [:]
        for detector in requirements.keys.sorted() {
            let path = directory + "/" + detector + ".json"
            let model = try loadModel(contentsOf: path)
            guard model.detector == detector else {
                throw ModelError(.invalid, "\(path) holds a model of \"\(model.detector)\", not \"\(detector)\"")
            }
            let missing = requirements[detector]!.optionalEvidence.subtracting(model.evidence.keys)
            guard missing.isEmpty else {
                throw ModelError(
                    .invalid,
                    "\(path): a folder's \(detector) model must have the evidence models \(missing.sorted().joined(separator: ", ")) too (a model file given alone may leave them out)")
            }
            models[detector] = model
        }
        return ModelSet(models: models)
    }

    /// The folders `bundled` looks in, in order.
    public static var searchPath: [String] {
        var folders: [String] = []
        if let named = ProcessInfo.processInfo.environment["IMGQUALITY_MODELS"], !named.isEmpty { folders.append(named) }
        if let executable = SystemCall.executablePath() {
            let folder = FileAccess.parentPath(of: executable)
            folders.append(folder + "/imgquality_QualityMetrics.resources/Models")
            folders.append(FileAccess.parentPath(of: folder) + "/share/imgquality/models")
        }
        folders.append(FileAccess.parentPath(of: #filePath) + "/Models")
        return folders
    }

    /// The bundled models, found along `searchPath`.
    /// - Throws: `ModelError` of kind `unreadable` when no folder on the path holds them, or
    ///   the error of the first folder that holds a broken one.
    public static func loadBundled() throws(ModelError) -> ModelSet {
        for folder in searchPath where FileAccess.kind(of: folder + "/smudge.json") == .other {
            return try load(directory: folder)
        }
        throw ModelError(
            .unreadable,
            "cannot find imgquality's detector models (looked in \(searchPath.joined(separator: ", "))); set IMGQUALITY_MODELS to the folder holding blur.json, smudge.json, exposure.json and text.json")
    }

    /// The outcome of loading the bundled models, once per process: a command checks it at
    /// start (`bundled` would stop the process), and `bundled` reads the same load.
    public static let bundledLoad: Result<ModelSet, ModelError> = Result { () throws(ModelError) in try loadBundled() }

    /// The bundled models, loaded once. A binary without them cannot score anything, so a
    /// missing or broken model folder stops the process with the loader's message.
    public static var bundled: ModelSet {
        switch bundledLoad {
        case .success(let models): return models
        case .failure(let error): fatalError("imgquality: \(error.message)")
        }
    }
}
