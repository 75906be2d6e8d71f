import Testing
import TextRecognition

@Suite("Language tags")
struct LanguageTagTests {
    @Test func tesseractNamesBecomeBCP47Tags() {
        let tags = ["eng", "deu", "rus", "chi_sim", "chi_tra_vert", "jpn_vert", "srp_latn", "fil", "spa_old", "osd", "script/Latin", "Eng"]
            .map(TesseractLanguageNames.languageTag(forTesseractName:))
        #expect(tags == ["en", "de", "ru", "zh-Hans", "zh-Hant", "ja", "sr-Latn", "fil", "es", "und", "und", "und"])
    }

    @Test func everyISOCodeRoundTrips() {
        for (code, name) in TesseractLanguageNames.byISOCode where code != "zh" {
            #expect(TesseractLanguageNames.languageTag(forTesseractName: name) == code)
        }
    }

    @Test func requestedLanguagesKeepTheCallersTag() {
        let tags = ["en", "en-US", "pt-BR", "deu", "chi_tra"].map(TesseractLanguageNames.languageTag(forRequested:))
        #expect(tags == ["en", "en-US", "pt-BR", "de", "zh-Hant"])
    }
}
