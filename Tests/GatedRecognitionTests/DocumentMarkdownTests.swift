import DocumentStructure
import Testing

@testable import GatedRecognition

@Suite("Document Markdown")
struct DocumentMarkdownTests {
    /// Read text that Markdown would take for its own marks or blocks is written to read as printed.
    @Test(arguments: [
        ("Tom & Jerry <b>", "Tom \\& Jerry \\<b\\>"),
        ("*not bold* and a_b", "\\*not bold\\* and a\\_b"),
        ("- not a list", "\\- not a list"),
        ("+ 3 more", "\\+ 3 more"),
        ("=", "\\="),
        ("12. Not numbered", "12\\. Not numbered"),
        ("3) not either", "3\\) not either"),
        ("    not code", "not code"),
        ("3.20 stays", "3.20 stays"),
        ("-5 °C", "-5 °C"),
        ("two\nlines", "two lines"),
    ])
    func textIsEscaped(_ text: String, _ written: String) {
        #expect(DocumentObservation.escaped(text) == written)
    }
}
