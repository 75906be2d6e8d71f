import DocumentStructure
import JSONSupport
import QualityAssessment

/// The JSON Schema (draft 2020-12) of the records `ocr --format document` prints;
/// `imgquality schema --record document` prints it.
public enum DocumentSchema {
    public static var documentRecord: JSONValue {
        .object([
            ("$schema", .string("https://json-schema.org/draft/2020-12/schema")),
            ("title", .string("imgquality document record")),
            ("description", .string(
                "One JSON object per input (per page of a file of several), in input order, as `imgquality ocr --format document` prints them: a read page, or an input that failed with an error code.")),
            ("oneOf", .array([ref("read"), ref("failed")])),
            ("$defs", .object(RecordSchema.sharedDefinitions + [
                ("read", read), ("document", document), ("box", box), ("paragraph", paragraph), ("list", list), ("table", table),
                ("barcode", barcode), ("datum", datum),
            ])),
        ])
    }

    static func ref(_ name: String) -> JSONValue { .object([("$ref", .string("#/$defs/\(name)"))]) }

    static func object(_ description: String, required: [String], _ properties: [(String, JSONValue)]) -> JSONValue {
        .object([
            ("type", .string("object")), ("description", .string(description)),
            ("required", .array(required.map(JSONValue.string))), ("properties", .object(properties)), ("additionalProperties", .bool(false)),
        ])
    }

    static func string(_ description: String) -> JSONValue { .object([("type", .string("string")), ("description", .string(description))]) }
    static func integer(_ description: String, minimum: Int) -> JSONValue {
        .object([("type", .string("integer")), ("minimum", .int(minimum)), ("description", .string(description))])
    }
    static func array(of item: JSONValue, _ description: String) -> JSONValue {
        .object([("type", .string("array")), ("items", item), ("description", .string(description))])
    }
    static func enumeration(_ values: [String], _ description: String) -> JSONValue {
        .object([("enum", .array(values.map(JSONValue.string))), ("description", .string(description))])
    }

    static var read: JSONValue {
        let milliseconds = JSONValue.object([("type", .string("number")), ("minimum", .int(0))])
        return object("A page decoded, gated and, when it passed (or with --force), read as a document.", required: ["path", "width", "height", "gate", "document", "timing"], [
            ("path", string("the input as named")), ("pathBytes", ref("pathBytes")), ("page", ref("page")),
            ("width", integer("width in pixels after EXIF orientation: the boxes' frame", minimum: 1)),
            ("height", integer("height in pixels after EXIF orientation", minimum: 1)),
            ("gate", ref("gate")),
            ("document", .object([("oneOf", .array([ref("document"), .object([("type", .string("null"))])])),
                ("description", .string("null when the gate rejected the page and --force was not given"))])),
            ("timing", object("milliseconds each step took", required: ["analysisMs"], [
                ("decodeMs", milliseconds), ("analysisMs", milliseconds), ("recognitionMs", milliseconds), ("structureMs", milliseconds),
            ])),
        ])
    }

    static var document: JSONValue {
        object("What the page holds, as Vision's document observation.", required: ["text", "paragraphs", "lists", "tables", "barcodes", "detectedData"], [
            ("text", string("the page's text in reading order: paragraphs, list items (marker, space, text) and table rows (cells separated by tabs), one per line; detectedData ranges index into it")),
            ("paragraphs", array(of: ref("paragraph"), "runs of lines outside tables and lists")),
            ("lists", array(of: ref("list"), "items that start with a bullet, a number or a letter")),
            ("tables", array(of: ref("table"), "ruled grids, and columns of aligned words")),
            ("barcodes", array(of: ref("barcode"), "barcodes and QR codes, decoded by ZBar")),
            ("detectedData", array(of: ref("datum"), "email addresses, URLs, phone numbers, dates, money, measurements, postal addresses, flight and tracking numbers in text")),
        ])
    }

    static var box: JSONValue {
        let coordinate = JSONValue.object([("type", .string("integer")), ("minimum", .int(0))])
        return object("a rectangle in full-resolution pixels from the top left", required: ["x", "y", "width", "height"], ["x", "y", "width", "height"].map { ($0, coordinate) })
    }

    static var paragraph: JSONValue {
        object("a paragraph", required: ["text", "box"], [("text", string("its lines joined by spaces")), ("box", ref("box"))])
    }

    static var list: JSONValue {
        let item = object("an item", required: ["marker", "text", "box"], [
            ("marker", string("the marker as read: •, 1., b)")), ("text", string("the item without its marker; a wrapped item's lines joined by spaces")), ("box", ref("box")),
        ])
        return object("a list", required: ["box", "marker", "items"], [
            ("box", ref("box")), ("marker", enumeration(DocumentList.MarkerKind.allCases.map(\.rawValue), "what marks its items")),
            ("items", array(of: item, "in order")),
        ])
    }

    static var table: JSONValue {
        let cell = object("a cell", required: ["row", "column", "rowSpan", "columnSpan", "text", "box"], [
            ("row", integer("first row it covers, from 0", minimum: 0)), ("column", integer("first column it covers, from 0", minimum: 0)),
            ("rowSpan", integer("rows it covers", minimum: 1)), ("columnSpan", integer("columns it covers", minimum: 1)),
            ("text", string("its words; several lines joined by spaces")), ("box", ref("box")),
        ])
        return object("a table", required: ["box", "rows", "columns", "ruling", "cells"], [
            ("box", ref("box")), ("rows", integer("rows", minimum: 1)), ("columns", integer("columns", minimum: 1)),
            ("ruling", enumeration(["grid", "alignment"], "grid: found from its ruling lines; alignment: from the alignment of its words")),
            ("cells", array(of: cell, "row by row, left to right; a place a spanning cell covers has no cell of its own, and a place with nothing in it may have none")),
        ])
    }

    static var barcode: JSONValue {
        object("a barcode", required: ["symbology", "payload", "box"], [
            ("symbology", enumeration(Barcode.Symbology.allCases.map(\.rawValue), "the kind of code")),
            ("payload", string("what it holds, as text")), ("box", ref("box")),
        ])
    }

    static var datum: JSONValue {
        let value = JSONValue.object([
            ("description", .string("the parsed value: a string (E.164 phone number, ISO 8601 date, URL with its scheme, address, flight and tracking number without spaces), {amount, currency} for money, {value, unit} for a measurement, or null")),
            ("oneOf", .array([
                .object([("type", .string("string"))]), .object([("type", .string("null"))]),
                object("money", required: ["amount", "currency"], [("amount", string("a decimal number, written out")), ("currency", string("ISO 4217 code"))]),
                object("a measurement", required: ["value", "unit"], [("value", .object([("type", .string("number"))])), ("unit", string("as printed"))]),
            ])),
        ])
        let range = object("where it stands in text, in Unicode scalars", required: ["start", "length"], [
            ("start", integer("offset of its first scalar", minimum: 0)), ("length", integer("scalars", minimum: 1)),
        ])
        return object("a piece of detected data", required: ["kind", "text", "range", "value"], [
            ("kind", enumeration(DetectedData.Kind.allCases.map(\.rawValue), "what it is")), ("text", string("as it stands in text")),
            ("range", range), ("value", value), ("box", ref("box")),
        ])
    }
}
