extension TesseractLanguageNames {
    /// Tesseract names whose BCP 47 tag is not simply the ISO 639-1 code of `byISOCode`: the
    /// Chinese scripts, vertical-text models (tagged as their language) and script variants,
    /// and the data files that are not languages at all (orientation detection, equations).
    static let tagsByName: [String: String] = [
        "chi_sim": "zh-Hans", "chi_tra": "zh-Hant", "chi_sim_vert": "zh-Hans", "chi_tra_vert": "zh-Hant",
        "jpn_vert": "ja", "kor_vert": "ko", "aze_cyrl": "az-Cyrl", "srp_latn": "sr-Latn", "uzb_cyrl": "uz-Cyrl",
        "osd": "und", "equ": "und",
    ]

    /// ISO 639-1 codes by Tesseract name, the reverse of `byISOCode`.
    static let isoCodeByName: [String: String] = Dictionary(uniqueKeysWithValues: byISOCode.map { ($0.value, $0.key) })

    /// The BCP 47 tag of a Tesseract language name: `eng` → `en`, `chi_tra` → `zh-Hant`.
    ///
    /// Names outside the tables keep their language part when it is two or three lowercase
    /// letters (`fil` → `fil`, `spa_old` → `es`): Tesseract names languages by their ISO 639-2/3
    /// codes, which BCP 47 accepts where ISO 639-1 has no code. Anything else (`script/Latin`)
    /// is `und`, BCP 47's undetermined language.
    public static func languageTag(forTesseractName name: String) -> String {
        if let tag = tagsByName[name] ?? isoCodeByName[name] { return tag }
        let language = String(name.split(separator: "_").first ?? "")
        if let code = isoCodeByName[language] { return code }
        guard (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase }) else { return "und" }
        return language
    }

    /// The BCP 47 tag of a language as `RecognitionOptions.recognitionLanguages` holds it: an
    /// ISO 639 code or BCP 47 tag whose language Tesseract knows stays as given (`en`, `en-US`),
    /// and a Tesseract name is converted (`eng` → `en`).
    public static func languageTag(forRequested language: String) -> String {
        name(for: language) != nil ? language : languageTag(forTesseractName: language)
    }
}
