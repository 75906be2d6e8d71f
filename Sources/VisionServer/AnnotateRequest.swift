import Foundation

/// What a client asks of one image in Google Cloud Vision's `images:annotate` (an
/// `AnnotateImageRequest`), or of one file in `files:annotate` (an `AnnotateFileRequest`),
/// parsed from the request body's JSON.
///
/// Only what imgquality answers is read: the image as `content` (base64), the features
/// `TEXT_DETECTION` and `DOCUMENT_TEXT_DETECTION` (by name or as the enum integers 5 and 11 the
/// official clients send with `$alt=json;enum-encoding=int`) and imgquality's own
/// `IMAGE_QUALITY`, `imageContext.languageHints`, and for files `pages`. An item that asks for
/// something else gets its own error in the response; the others are still answered.
struct AnnotateItem: Sendable {
    /// The decoded bytes of the image or file, or why there are none.
    var content: Result<[UInt8], ItemError>
    var features: Set<Feature>
    var languageHints: [String]
    /// `files:annotate`'s pages, from 1, at most five; empty for the first five, as Cloud Vision
    /// reads by default. (Cloud Vision's negative numbers, counting from the end, are not taken.)
    var pages: [Int] = []
    /// `inputConfig.mimeType` of a file.
    var mimeType: String?
    /// `imageContext.imageQualityGate`: false recognizes the image whatever the gate says.
    var gate: Bool = true

    enum Feature: String, Sendable, CaseIterable {
        case textDetection = "TEXT_DETECTION"
        case documentTextDetection = "DOCUMENT_TEXT_DETECTION"
        /// imgquality's extension: the quality assessment, in the response's `imageQuality`.
        case imageQuality = "IMAGE_QUALITY"

        /// Cloud Vision's `Feature.Type` numbers; IMAGE_QUALITY is imgquality's and has none.
        static let numbers: [Int: Feature] = [5: .textDetection, 11: .documentTextDetection]
    }
}

/// A problem with one item of a request: answered as that item's `google.rpc.Status`.
struct ItemError: Error, Sendable, Equatable {
    /// A `google.rpc.Code`: 3 INVALID_ARGUMENT, 4 DEADLINE_EXCEEDED, 9 FAILED_PRECONDITION, 12 UNIMPLEMENTED.
    var code: Int
    var message: String
}

/// A problem with the whole request: an HTTP error with a `google.rpc.Status` body.
struct RequestError: Error, Sendable {
    var httpStatus: Int
    var status: String
    var message: String

    static func invalid(_ message: String) -> RequestError { RequestError(httpStatus: 400, status: "INVALID_ARGUMENT", message: message) }
}

enum AnnotateRequest {
    /// The items of an `images:annotate` body (`{"requests": [AnnotateImageRequest…]}`).
    /// - Throws: `RequestError` when the body is not such JSON, has no requests or more than `maxItems`.
    static func images(_ body: [UInt8], maxItems: Int, maxImageBytes: Int) throws(RequestError) -> [AnnotateItem] {
        try requests(body, maxItems: maxItems).enumerated().map { index, request throws(RequestError) in
            try item(request, index: index, sourceKey: "image", maxBytes: maxImageBytes)
        }
    }

    /// The items of a `files:annotate` body (`{"requests": [AnnotateFileRequest…]}`): the file in
    /// `inputConfig.content`, its `mimeType`, and `pages`.
    static func files(_ body: [UInt8], maxItems: Int, maxFileBytes: Int) throws(RequestError) -> [AnnotateItem] {
        try requests(body, maxItems: maxItems).enumerated().map { index, request throws(RequestError) in
            var file = try item(request, index: index, sourceKey: "inputConfig", maxBytes: maxFileBytes)
            let config = request["inputConfig"] as? [String: Any]
            file.mimeType = config?["mimeType"] as? String
            if let pages = request["pages"] {
                guard let numbers = pages as? [Any], let pages = numbers.map(integer) as? [Int], pages.allSatisfy({ $0 >= 1 }) else {
                    throw RequestError.invalid("requests[\(index)].pages: a list of page numbers from 1 is expected")
                }
                // As Cloud Vision's online files:annotate: a request's time stays that of five pages.
                guard pages.count <= 5 else {
                    throw RequestError.invalid("requests[\(index)].pages: \(pages.count) pages asked for; at most 5 are read per file")
                }
                file.pages = pages
            }
            return file
        }
    }

    private static func requests(_ body: [UInt8], maxItems: Int) throws(RequestError) -> [[String: Any]] {
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: Data(body))
        } catch {
            throw RequestError.invalid("the body is not JSON: \(Self.reason(error))")
        }
        guard let object = json as? [String: Any], let requests = object["requests"] as? [Any] else {
            throw RequestError.invalid("the body must be an object with a \"requests\" list")
        }
        guard !requests.isEmpty else { throw RequestError.invalid("\"requests\" is empty") }
        guard requests.count <= maxItems else {
            throw RequestError.invalid("\(requests.count) requests in one call; at most \(maxItems) are taken")
        }
        return try requests.enumerated().map { index, request throws(RequestError) in
            guard let request = request as? [String: Any] else { throw RequestError.invalid("requests[\(index)] is not an object") }
            return request
        }
    }

    /// One request; what concerns only its image becomes the item's error instead of failing the call.
    private static func item(_ request: [String: Any], index: Int, sourceKey: String, maxBytes: Int) throws(RequestError) -> AnnotateItem {
        var features = Set<AnnotateItem.Feature>()
        var unsupported: [String] = []
        for (position, entry) in ((request["features"] as? [Any]) ?? []).enumerated() {
            guard let entry = entry as? [String: Any] else { throw RequestError.invalid("requests[\(index)].features[\(position)] is not an object") }
            let type = entry["type"]
            if let name = type as? String, let feature = AnnotateItem.Feature(rawValue: name) {
                features.insert(feature)
            } else if let number = integer(type as Any), let feature = AnnotateItem.Feature.numbers[number] {
                features.insert(feature)
            } else {
                unsupported.append(type.map { "\($0)" } ?? "(none)")
            }
        }
        let context = request["imageContext"] as? [String: Any]
        let hints = (context?["languageHints"] as? [Any])?.compactMap { $0 as? String } ?? []
        var item = AnnotateItem(content: .failure(ItemError(code: 3, message: "")), features: features, languageHints: hints)
        if let gate = context?["imageQualityGate"] as? Bool { item.gate = gate }
        item.content = content(request[sourceKey], key: sourceKey, maxBytes: maxBytes)
        if !unsupported.isEmpty {
            item.content = .failure(ItemError(
                code: 12, message: "feature type \(unsupported.joined(separator: ", ")) is not served: imgquality answers TEXT_DETECTION, DOCUMENT_TEXT_DETECTION and IMAGE_QUALITY"))
        } else if features.isEmpty {
            item.content = .failure(ItemError(code: 3, message: "no features: ask for TEXT_DETECTION, DOCUMENT_TEXT_DETECTION or IMAGE_QUALITY"))
        }
        return item
    }

    /// The bytes of `image.content` (or `inputConfig.content`), base64 in the JSON.
    private static func content(_ source: Any?, key: String, maxBytes: Int) -> Result<[UInt8], ItemError> {
        guard let source = source as? [String: Any] else { return .failure(ItemError(code: 3, message: "no \(key): send the bytes in \(key).content")) }
        guard let text = source["content"] as? String else {
            if source["source"] != nil || source["gcsSource"] != nil {
                return .failure(ItemError(code: 3, message: "\(key) by URI is not fetched: send the bytes in \(key).content"))
            }
            return .failure(ItemError(code: 3, message: "\(key).content is missing"))
        }
        // A base64 text is 4/3 of its bytes: refuse an oversized image before decoding it.
        guard text.utf8.count / 4 * 3 <= maxBytes + 3 else {
            return .failure(ItemError(code: 3, message: "\(key).content is larger than \(maxBytes) bytes"))
        }
        guard let bytes = base64(text) else { return .failure(ItemError(code: 3, message: "\(key).content is not base64")) }
        guard bytes.count <= maxBytes else { return .failure(ItemError(code: 3, message: "\(key).content is larger than \(maxBytes) bytes")) }
        guard !bytes.isEmpty else { return .failure(ItemError(code: 3, message: "\(key).content is empty")) }
        return .success(bytes)
    }

    /// Standard base64, or the URL-safe alphabet protobuf's JSON also accepts, padded or not.
    static func base64(_ text: String) -> [UInt8]? {
        if let data = Data(base64Encoded: text) { return [UInt8](data) }
        var standard = text.replacing("-", with: "+").replacing("_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    /// A JSON integer (a number without a fraction, or a string of digits as protobuf's JSON writes 64-bit ones).
    private static func integer(_ value: Any) -> Int? {
        if let number = value as? NSNumber {
            let double = number.doubleValue
            return double == double.rounded() && abs(double) < 1e9 ? Int(double) : nil
        }
        if let text = value as? String { return Int(text) }
        return nil
    }

    private static func reason(_ error: any Error) -> String {
        let description = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        return description ?? "\(error)"
    }
}
