import Foundation
import Testing

@testable import VisionServer

@Suite("images:annotate requests")
struct AnnotateRequestTests {
    static func body(_ requests: [Any]) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: ["requests": requests]))
    }

    static let pixels = Data([0x89, 0x50, 0x4E, 0x47]).base64EncodedString()

    @Test func featuresAreTakenByNameOrByNumberWithTheLanguageHints() throws {
        let items = try AnnotateRequest.images(Self.body([
            ["image": ["content": Self.pixels], "features": [["type": "TEXT_DETECTION"], ["type": "IMAGE_QUALITY"]]],
            ["image": ["content": Self.pixels], "features": [["type": 11]], "imageContext": ["languageHints": ["de", "en"], "imageQualityGate": false]],
        ]), maxItems: 16, maxImageBytes: 100)
        #expect(items.count == 2)
        #expect(items[0].features == [.textDetection, .imageQuality] && items[0].gate)
        #expect(try items[0].content.get() == [0x89, 0x50, 0x4E, 0x47])
        #expect(items[1].features == [.documentTextDetection] && items[1].languageHints == ["de", "en"] && !items[1].gate)
    }

    /// What concerns one image is that image's error; the others are still answered.
    @Test(arguments: [
        (#"{"image": {"content": "not base64!"}, "features": [{"type": 11}]}"#, 3, "image.content is not base64"),
        (#"{"image": {"source": {"imageUri": "gs://b/o.png"}}, "features": [{"type": 11}]}"#, 3, "image by URI is not fetched: send the bytes in image.content"),
        (#"{"features": [{"type": 11}]}"#, 3, "no image: send the bytes in image.content"),
        (#"{"image": {"content": ""}, "features": [{"type": 11}]}"#, 3, "image.content is empty"),
        (#"{"image": {"content": "\#(Data(count: 200).base64EncodedString())"}, "features": [{"type": 11}]}"#, 3, "image.content is larger than 100 bytes"),
        (#"{"image": {"content": "iVBORw=="}}"#, 3, "no features: ask for TEXT_DETECTION, DOCUMENT_TEXT_DETECTION or IMAGE_QUALITY"),
        (#"{"image": {"content": "iVBORw=="}, "features": [{"type": "LABEL_DETECTION"}, {"type": 1}]}"#, 12,
         "feature type LABEL_DETECTION, 1 is not served: imgquality answers TEXT_DETECTION, DOCUMENT_TEXT_DETECTION and IMAGE_QUALITY"),
    ])
    func anItemsProblemIsItsOwnError(_ request: String, _ code: Int, _ message: String) throws {
        let body = #"{"requests": ["# + request + #", {"image": {"content": "iVBORw=="}, "features": [{"type": 5}]}]}"#
        let items = try AnnotateRequest.images(Array(body.utf8), maxItems: 16, maxImageBytes: 100)
        #expect(items.count == 2)
        #expect(throws: ItemError(code: code, message: message)) { try items[0].content.get() }
        #expect(try items[1].content.get().count == 4)
    }

    /// What concerns the whole call is an HTTP 400 with its reason.
    @Test(arguments: [
        (Array("{\"requests\": [".utf8), "the body is not JSON"),
        (Array("[1, 2]".utf8), "the body must be an object with a \"requests\" list"),
        (Array("{\"requests\": []}".utf8), "\"requests\" is empty"),
        (Array("{\"requests\": [1]}".utf8), "requests[0] is not an object"),
        (body(Array(repeating: ["features": [["type": 11]]], count: 3)), "3 requests in one call; at most 2 are taken"),
    ])
    func aBrokenCallIsRefusedWhole(_ body: [UInt8], _ message: String) {
        do {
            _ = try AnnotateRequest.images(body, maxItems: 2, maxImageBytes: 100)
            Issue.record("accepted")
        } catch {
            #expect(error.httpStatus == 400 && error.status == "INVALID_ARGUMENT")
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }

    @Test func aFileRequestNamesItsPagesAndType() throws {
        let items = try AnnotateRequest.files(Self.body([
            ["inputConfig": ["content": Self.pixels, "mimeType": "image/tiff"], "features": [["type": 11]], "pages": [1, 3]],
        ]), maxItems: 5, maxFileBytes: 100)
        #expect(items[0].pages == [1, 3] && items[0].mimeType == "image/tiff")
        #expect(try items[0].content.get().count == 4)
        for (pages, message) in [([0], "requests[0].pages: a list of page numbers from 1 is expected"),
                                 ([1, 2, 3, 4, 5, 6], "requests[0].pages: 6 pages asked for; at most 5 are read per file")] {
            do {
                _ = try AnnotateRequest.files(Self.body([["inputConfig": ["content": Self.pixels], "features": [["type": 11]], "pages": pages]]), maxItems: 5, maxFileBytes: 100)
                Issue.record("accepted \(pages)")
            } catch {
                #expect(error.httpStatus == 400 && error.message == message)
            }
        }
    }

    @Test func base64InEitherAlphabetPaddedOrNot() {
        #expect(AnnotateRequest.base64("+/8=") == [0xFB, 0xFF])
        #expect(AnnotateRequest.base64("-_8") == [0xFB, 0xFF])
        #expect(AnnotateRequest.base64("a b") == nil)
    }
}

@Suite("Admission")
struct AdmissionTests {
    /// One worker and a queue of one: the first request works, the second waits, the third is
    /// refused; when the first leaves, the waiting one gets the worker.
    @Test func aFullQueueRefusesAndALeavingRequestHandsItsWorkerOn() async {
        let admission = Admission(workers: 1, queueLimit: 1)
        #expect(await admission.enter())
        let waiting = Task { await admission.enter() }
        while admission.depth == 0 { await Task.yield() }
        #expect(await admission.enter() == false)
        admission.leave()
        #expect(await waiting.value)
        #expect(admission.depth == 0)
        admission.leave()
        #expect(await admission.enter())
    }
}
