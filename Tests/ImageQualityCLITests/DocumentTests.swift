import Foundation
import Testing
import _ImagingTestSupport

/// `imgquality ocr` reading documents, through the binary and Tesseract, on the committed page
/// (`Tests/Fixtures/document/page.png`, Scripts/fixtures/generate.py lists what it holds).
@Suite("ocr documents", .serialized)
struct DocumentTests {
    static let page = Fixtures.path("document/page.png")

    @Test func aPageReadsAsTablesListsBarcodesAndData() throws {
        let run = try Binary.run(["ocr", "--format", "document", Self.page])
        #expect(run.status == 0, "\(run.stderr)")
        let record = try #require(run.records.first)
        #expect(run.records.count == 1)
        let document = try #require(record["document"] as? [String: Any])
        let tables = try #require(document["tables"] as? [[String: Any]])
        #expect(tables.map { [$0["rows"] as? Int, $0["columns"] as? Int] } == [[4, 3], [4, 3]])
        #expect(tables.map { $0["ruling"] as? String } == ["grid", "alignment"])
        let ruled = try #require(tables.first?["cells"] as? [[String: Any]])
        // The header's second cell spans the two columns whose rule is left out.
        let contact = try #require(ruled.first { $0["row"] as? Int == 0 && $0["column"] as? Int == 1 })
        #expect(contact["text"] as? String == "Contact" && contact["columnSpan"] as? Int == 2 && contact["rowSpan"] as? Int == 1)
        #expect(ruled.count == 11)
        #expect(ruled.first { $0["row"] as? Int == 2 && $0["column"] as? Int == 2 }?["text"] as? String == "+49 30 1234567")
        let aligned = try #require(tables.last?["cells"] as? [[String: Any]])
        #expect(aligned.map { $0["text"] as? String ?? "" } == ["Item", "Qty", "Price", "Seeds", "40", "$3.20", "Compost", "25", "$15.00", "Trowel", "10", "$8.99"])
        let lists = try #require(document["lists"] as? [[String: Any]])
        #expect(lists.map { $0["marker"] as? String } == ["bullet", "number"])
        #expect((lists.first?["items"] as? [[String: Any]])?.map { $0["text"] as? String } == ["Bring your own gloves", "Water the beds at dawn", "Return every tool"])
        #expect((lists.last?["items"] as? [[String: Any]])?.map { $0["marker"] as? String } == ["1.", "2.", "3."])
        let barcodes = try #require(document["barcodes"] as? [[String: Any]])
        #expect(barcodes.map { $0["symbology"] as? String } == ["qr"] && barcodes.first?["payload"] as? String == "https://example.org/garden")
        let data = try #require(document["detectedData"] as? [[String: Any]])
        let found = Set(data.map { "\($0["kind"] as? String ?? "") \($0["text"] as? String ?? "")" })
        for expected in [
            "email club@example.org", "phone (212) 555-0147", "date March 14, 2026", "money $12.50", "email anna@example.com",
            "phone +49 30 1234567", "money $15.00",
        ] {
            #expect(found.contains(expected), "\(expected) in \(found.sorted())")
        }
        // The version number and the IP address are not data.
        #expect(!data.contains { ($0["text"] as? String ?? "").contains("2.4.1") || ($0["text"] as? String ?? "").contains("192.168") })
        let text = try #require(document["text"] as? String)
        for datum in data {
            let range = try #require(datum["range"] as? [String: Int])
            let scalars = Array(text.unicodeScalars)[range["start"]!..<(range["start"]! + range["length"]!)]
            #expect(String(String.UnicodeScalarView(scalars)) == datum["text"] as? String)
        }
        let schema = try SchemaValidator(schema: Binary.run(["schema", "--record", "document"]).stdout)
        #expect(schema.problems(run.stdout.trimmingCharacters(in: .newlines)).isEmpty)
    }

    @Test func markdownWritesTablesAsTablesAndListsAsLists() throws {
        let run = try Binary.run(["ocr", "--format", "markdown", Self.page])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("# \(Self.page.replacingOccurrences(of: "_", with: "\\_"))\n\nGarden Club Sign-up\n\n"))
        #expect(run.stdout.contains("\n- Bring your own gloves\n- Water the beds at dawn\n- Return every tool\n"))
        #expect(run.stdout.contains("\n1. Sign the sheet\n2. Pay the dues\n3. Collect a key\n"))
        #expect(run.stdout.contains("\n| Item | Qty | Price |\n| --- | --- | --- |\n| Seeds | 40 | $3.20 |\n"))
        #expect(run.stdout.contains("| Name | Contact |  |\n"))
        #expect(run.stdout.contains("`qr`: https://example.org/garden"))
    }

    @Test func tablesAreWrittenAsCSVAndTSVFiles() throws {
        let folder = try TemporaryDirectory()
        let run = try Binary.run(["ocr", "--quiet", "--tables", folder.path + "/tables", Self.page])
        #expect(run.status == 0, "\(run.stderr)")
        let stem = Self.page.split(separator: "/").joined(separator: "_")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/tables").sorted()
        #expect(files == ["\(stem)-table1.csv", "\(stem)-table2.csv"])
        let csv = try String(contentsOfFile: folder.path + "/tables/\(stem)-table2.csv", encoding: .utf8)
        #expect(csv == "Item,Qty,Price\r\nSeeds,40,$3.20\r\nCompost,25,$15.00\r\nTrowel,10,$8.99\r\n")
        let first = try String(contentsOfFile: folder.path + "/tables/\(stem)-table1.csv", encoding: .utf8)
        #expect(first.hasPrefix("Name,Contact,\r\nAnna Berg,anna@example.com,(646) 555-0123\r\n"))
        // The same input twice: the second's files do not overwrite the first's.
        let tsv = try Binary.run(["ocr", "--quiet", "--tables", folder.path + "/tsv", "--table-format", "tsv", Self.page, Self.page])
        #expect(tsv.status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path + "/tsv").sorted()
            == ["\(stem)-table1-2.tsv", "\(stem)-table1.tsv", "\(stem)-table2-2.tsv", "\(stem)-table2.tsv"])
        #expect(try String(contentsOfFile: folder.path + "/tsv/\(stem)-table2.tsv", encoding: .utf8).hasPrefix("Item\tQty\tPrice\r\n"))
    }

    @Test func googleVisionMarksTableAndBarcodeBlocks() throws {
        let run = try Binary.run(["ocr", "--format", "gcv", Self.page])
        let body = try #require(run.records.first)
        let response = try #require((body["responses"] as? [[String: Any]])?.first)
        let page = try #require(((response["fullTextAnnotation"] as? [String: Any])?["pages"] as? [[String: Any]])?.first)
        let types = (page["blocks"] as? [[String: Any]] ?? []).map { $0["blockType"] as? String ?? "" }
        #expect(types.contains("TEXT") && types.contains("TABLE") && types.last == "BARCODE")
        #expect(types.filter { $0 == "BARCODE" }.count == 1)
        let schema = try SchemaValidator(schema: String(contentsOfFile: Fixtures.repositoryPath("Tests/Schemas/google-vision-annotate-response.schema.json"), encoding: .utf8))
        #expect(schema.problems(run.stdout.trimmingCharacters(in: .newlines)).isEmpty)
    }

    @Test func brokenInputsGetOneRecordEachInOrder() throws {
        let inputs = [Fixtures.path("other/not-an-image.txt"), Self.page, "/no/such/file.png", Fixtures.path("png/truncated.png")]
        let run = try Binary.run(["ocr", "--quiet", "--format", "document"] + inputs)
        #expect(run.status == 2)
        #expect(run.records.map { $0["path"] as? String } == inputs)
        #expect(run.records.map { ($0["error"] as? [String: Any])?["code"] as? String } == ["decode.notAnImage", nil, "input.notFound", "decode.truncated"])
        #expect(run.records[1]["document"] is [String: Any])
        let schema = try SchemaValidator(schema: Binary.run(["schema", "--record", "document"]).stdout)
        for line in run.stdout.split(separator: "\n") { #expect(schema.problems(String(line)).isEmpty, "\(line)") }
    }

    @Test func aRegionThatIsNoCountryCodeIsAUsageError() throws {
        let run = try Binary.run(["ocr", "--format", "document", "--region", "USA", Self.page])
        #expect(run.status == 64 && run.stdout.isEmpty)
        #expect(run.stderr.contains("--region takes a country's two-letter ISO 3166 code (US, GB, DE, FR…), not 'USA'."))
    }

    /// The report page in headless Chromium: a box for each thing read, and a box picked
    /// (as a click picks it; `#select=` does it on load) shows its kind and text.
    @Test func theReportDrawsWhatWasReadAndShowsAPickedBox() throws {
        let folder = try TemporaryDirectory()
        let report = folder.path + "/report"
        let run = try Binary.run(["ocr", "--quiet", "--report", report, Self.page, Fixtures.path("other/not-an-image.txt")])
        #expect(run.status == 2, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: report + "/images") == ["000000.jpg"])
        let dom = try ContactSheetTests.chromium(
            ["--dump-dom", "file://\(report)/index.html#select=b0-cell-0-0-1"], profile: folder.path + "/chromium-profile")
        func count(_ kind: String) -> Int { dom.components(separatedBy: "class=\"box \(kind)").count - 1 }
        #expect(count("table") == 2 && count("cell") == 23 && count("list") == 2 && count("item") == 6 && count("barcode") == 1)
        #expect(count("datum") >= 7 && count("paragraph") >= 2 && count("line") >= 10)
        // The picked cell is highlighted and described.
        #expect(dom.contains("class=\"box cell selected\" id=\"b0-cell-0-0-1\""))
        #expect(dom.contains("<div class=\"kind\">cell: row 0, column 1, spanning 1 × 2</div><div>Contact</div>"), "\(dom.prefix(0))")
        // The file that is not an image has a card saying why, and no image.
        #expect(dom.contains("failed: decode.notAnImage"))
    }
}
