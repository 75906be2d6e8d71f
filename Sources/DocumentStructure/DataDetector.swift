import Foundation

/// Finds data in text, as Vision's detected data and Foundation's `NSDataDetector` do:
/// email addresses, URLs, phone numbers, dates, amounts of money, measurements, postal
/// addresses, flight numbers and parcel tracking numbers, each with its parsed value.
///
/// Patterns are strict on purpose: a version number is not a date, an IP address is not a
/// phone number, a bare year is not a date, a tracking number's check digit must hold, a
/// day must exist in its month. Where two findings overlap the more specific one wins (an
/// email address over the URL of its domain, an address over the numbers in it).
public struct DataDetector: Sendable {
    /// The region whose conventions settle what the text leaves open: the country code of a
    /// national phone number, month-first or day-first in a date written with slashes,
    /// the dollar's currency. An ISO 3166 code: US, CA, GB, DE, FR, IT, ES, NL, AT, CH, AU.
    public var region: String
    public var kinds: Set<DetectedData.Kind>

    public init(region: String = "US", kinds: Set<DetectedData.Kind> = Set(DetectedData.Kind.allCases)) {
        self.region = region.uppercased()
        self.kinds = kinds
    }

    /// The data found in `text`, in text order, none overlapping.
    ///
    /// A tab separates a table's cells (`DocumentObservation.text`), and a datum is first
    /// looked for within cells. A line that was taken for a table row by mistake (a form's
    /// label and its value, an address whose words stand far apart on a bent page) splits
    /// its data over cells, so the text is then read again with each tab as a space, and
    /// what that finds where the first reading found nothing is kept too.
    public func detect(in text: String) -> [DetectedData] {
        // The more specific kind first, then the longer match.
        let priority = Dictionary(Self.rules.enumerated().map { ($1.kind, $0) }, uniquingKeysWith: min)
        func byPrecedence(_ found: [DetectedData]) -> [DetectedData] {
            found.sorted { a, b in
                let pa = priority[a.kind] ?? 99, pb = priority[b.kind] ?? 99
                return pa != pb ? pa < pb : a.range.count > b.range.count
            }
        }
        var candidates = byPrecedence(candidates(in: text))
        if text.contains("\t") {
            // Replacing one scalar by another keeps every range as it is in `text`; each
            // datum's text is taken back from `text`, tabs and all.
            let scalars = Array(text.unicodeScalars)
            candidates += byPrecedence(self.candidates(in: text.replacing("\t", with: " "))).map { datum in
                var datum = datum
                datum.text = String(String.UnicodeScalarView(scalars[datum.range]))
                return datum
            }
        }
        var kept: [DetectedData] = []
        for candidate in candidates where !kept.contains(where: { $0.range.overlaps(candidate.range) }) {
            kept.append(candidate)
        }
        PhoneRule.dialHomeNumbers(&kept, region: region)
        return kept.sorted { $0.range.lowerBound < $1.range.lowerBound }
    }

    /// Every match of every rule in `string`, overlaps included; ranges in Unicode scalars.
    func candidates(in string: String) -> [DetectedData] {
        var candidates: [DetectedData] = []
        for rule in Self.rules where kinds.contains(rule.kind) {
            for match in rule.matches(in: string) {
                let matched = String(string[match.range])
                guard let found = rule.parse(matched, match, self) else { continue }
                let start = string.unicodeScalars.distance(from: string.startIndex, to: match.range.lowerBound)
                // A kept part is the match's end (the flight after the word "flight") or its start (a URL without its full stop).
                let trimmed = found.text ?? matched
                let length = trimmed.unicodeScalars.count
                let offset = matched.hasSuffix(trimmed) ? matched.unicodeScalars.count - length : 0
                candidates.append(DetectedData(kind: rule.kind, text: trimmed, range: (start + offset)..<(start + offset + length), value: found.value))
            }
        }
        return candidates
    }

    // MARK: - Rules

    struct Found {
        /// The text kept when the match carries something that is not part of the datum
        /// (a URL's trailing full stop); nil keeps the match.
        var text: String?
        var value: DetectedData.Value?
    }

    /// A rule's match: its range, and the text of each group (0 the whole match; nil for a
    /// group that took no part).
    struct Match {
        var range: Range<String.Index>
        var groups: [String?]
    }

    struct Rule: @unchecked Sendable {
        // NSRegularExpression is immutable and thread-safe, but not marked Sendable; the
        // rules are built once and only read.
        var kind: DetectedData.Kind
        /// ICU's engine (Foundation's NSRegularExpression): it finds the same matches as the
        /// standard library's `Regex` on these patterns (leftmost, alternatives in order) at
        /// a tenth of the time or less.
        var regex: NSRegularExpression
        var parse: @Sendable (String, Match, DataDetector) -> Found?

        init(
            _ kind: DetectedData.Kind, notAfter: String, _ pattern: String,
            parse: @escaping @Sendable (String, Match, DataDetector) -> Found?
        ) {
            self.kind = kind
            // The patterns are constants of this file: one that does not compile is a bug here.
            // `notAfter`, what may not stand just before a match (`\w` and literal characters),
            // is the pattern's lookbehind, so a match refused for what precedes it does not hide
            // one that starts inside it (`026 212-555-0147` of `2026 212-555-0147`, a number
            // dialled at home after the year's digit, used to leave the phone number unfound).
            regex = try! NSRegularExpression(pattern: "(?<![\(notAfter)])" + Self.asciiDigits(pattern))
            self.parse = parse
        }

        /// `pattern` with each `\d` an ASCII digit (`[0-9]`, or `0-9` inside a set): a digit
        /// of another script is not a number these rules can parse, and ICU's `\d` takes
        /// every script's.
        static func asciiDigits(_ pattern: String) -> String {
            var out = "", inSet = false, escaped = false
            for character in pattern {
                if escaped {
                    out += character == "d" ? (inSet ? "0-9" : "[0-9]") : "\\" + String(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else {
                    if character == "[" { inSet = true } else if character == "]" { inSet = false }
                    out.append(character)
                }
            }
            return out
        }

        /// Every match in `string`, in order, none overlapping.
        func matches(in string: String) -> [Match] {
            regex.matches(in: string, range: NSRange(string.startIndex..., in: string)).compactMap { result in
                guard let range = Range(result.range, in: string) else { return nil }
                let groups = (0..<result.numberOfRanges).map { index -> String? in
                    Range(result.range(at: index), in: string).map { String(string[$0]) }
                }
                return Match(range: range, groups: groups)
            }
        }
    }

    /// In priority order: the first kind wins an overlap.
    static let rules: [Rule] = [
        // A space on either side of the `@` is how a recognizer often reads one (`name @example.com`),
        // and a dot in the name read as a comma (`info,anna@`): the match keeps them, the
        // value has neither space nor comma. (A dot read with a space after it, `info. anna@`,
        // is not joined: a sentence ending just before an address reads the same way.)
        Rule(.email, notAfter: #"\w.%+-"#, #"[A-Za-z0-9](?:[A-Za-z0-9._%+-]|,(?=[A-Za-z0-9]))* ?@ ?[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![\w-])"#) { text, _, _ in
            Found(value: .text(text.replacing(" ", with: "").replacing(",", with: ".")))
        },
        // A space after the scheme's colon or after `www.` is how a recognizer often reads a
        // URL's punctuation (`https: //…`, `www. example.org`): the match keeps it, the value does not.
        Rule(.url, notAfter: #"\w@./-"#, #"(?:(?:https?|ftp): ?//[^\s<>"]+|www\.[^\s<>"]+|www\. [A-Za-z0-9-]+\.[A-Za-z][^\s<>"]*|[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.(?:com|org|net|edu|gov|io|info|biz|dev|app|co|uk|de|fr|eu|es|it|nl|ch|at|ca|us)(?:/[^\s<>"]*)?)(?![\w@])"#) { text, _, _ in
            URLRule.parse(text)
        },
        Rule(.trackingNumber, notAfter: #"\w"#, #"(?:1Z ?[0-9A-Z]{3} ?[0-9A-Z]{3} ?[0-9A-Z]{2} ?[0-9A-Z]{4} ?[0-9A-Z]{4}|[A-Z]{2} ?\d{3} ?\d{3} ?\d{3} ?[A-Z]{2}|9\d{3}(?: ?\d{4}){4} ?\d{2}|\d{4} ?\d{4} ?\d{4})(?![\w])"#) { text, _, _ in
            TrackingRule.parse(text)
        },
        Rule(.postalAddress, notAfter: #"\w"#, AddressRule.pattern) { text, _, _ in
            Found(value: .text(text.split(whereSeparator: \.isWhitespace).joined(separator: " ")))
        },
        Rule(.flightNumber, notAfter: #"\w"#, #"(?:(?i:flight|flt)\.?:?\s+([A-Z][A-Z0-9]|[0-9][A-Z])\s?(\d{1,4})|([A-Z][A-Z0-9]|[0-9][A-Z])\s?(\d{1,4}))(?![\w.,:/-]\d|\w)"#) { _, match, _ in
            FlightRule.parse(match)
        },
        Rule(.money, notAfter: #"\w.,"#, MoneyRule.pattern) { text, match, detector in
            MoneyRule.parse(text, match, region: detector.region)
        },
        Rule(.date, notAfter: #"\w.,/-"#, DateRule.pattern) { _, match, detector in
            DateRule.parse(match, region: detector.region)
        },
        Rule(.phone, notAfter: #"\w.+/-"#, #"(?:\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?)(?:[ .-]?\d{2,4}){1,4}|\(?\d{3}\) ?\d{3}[ .-]\d{4}|\d{3}[ .-]\d{3}[ .-]\d{4}|0\d{1,4}(?:[ /-]\d{2,8}){1,4}|0\d{2,4} ?\d{5,8})(?![\w.,/-]?\d)"#) { text, _, detector in
            PhoneRule.parse(text, region: detector.region)
        },
        // A leading `+` read as `*` or `#`: a rule of its own, so that a `#` it refuses
        // (`Room #4 212-555-0147`) hides no number the rule above finds in it.
        Rule(.phone, notAfter: #"\w.+/-"#, #"[*#]\d{1,3}(?:[ .-]?\(?\d{1,4}\)?)(?:[ .-]?\d{2,4}){1,4}(?![\w.,/-]?\d)"#) { text, _, detector in
            PhoneRule.parse(text, region: detector.region)
        },
        Rule(.measurement, notAfter: #"\w.,/:-"#, MeasurementRule.pattern) { _, match, _ in
            MeasurementRule.parse(match)
        },
    ]
}

// MARK: - Per kind

/// The capture group `index` as a string, or nil when it did not take part.
func group(_ match: DataDetector.Match, _ index: Int) -> String? {
    index < match.groups.count ? match.groups[index] : nil
}

enum URLRule {
    static func parse(_ matched: String) -> DataDetector.Found? {
        // A sentence's punctuation after a URL is not part of it; nor an unmatched bracket.
        var text = Substring(matched)
        while let last = text.last, ".,;:!?'\"".contains(last) || (last == ")" && !text.contains("(")) { text = text.dropLast() }
        guard text.contains(".") else { return nil }
        let address = String(text).replacing(" ", with: "")
        let lower = address.lowercased()
        let value = lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("ftp://") ? address : "http://" + address
        return DataDetector.Found(text: String(text), value: .text(value))
    }
}

enum TrackingRule {
    static func parse(_ matched: String) -> DataDetector.Found? {
        let compact = matched.filter { $0 != " " }
        let digits = compact.compactMap(\.wholeNumberValue)
        if compact.hasPrefix("1Z"), compact.count == 18 {
            return upsCheck(Array(compact)) ? DataDetector.Found(value: .text(compact)) : nil
        }
        if compact.count == 13, compact.prefix(2).allSatisfy(\.isLetter), compact.suffix(2).allSatisfy(\.isLetter), digits.count == 9 {
            return s10Check(digits) ? DataDetector.Found(value: .text(compact)) : nil
        }
        if digits.count == compact.count, digits.count == 22 {
            return weightedMod10(digits) ? DataDetector.Found(value: .text(compact)) : nil
        }
        if digits.count == compact.count, digits.count == 12 {
            return fedExCheck(digits) ? DataDetector.Found(value: .text(compact)) : nil
        }
        return nil
    }

    /// UPS: the 15 characters after "1Z" (letters as (offset from A + 2) mod 10), odd
    /// positions once and even positions twice; the check digit brings the sum to a multiple of 10.
    static func upsCheck(_ characters: [Character]) -> Bool {
        var sum = 0
        for (index, character) in characters[2..<17].enumerated() {
            let value: Int
            if let digit = character.wholeNumberValue {
                value = digit
            } else if let ascii = character.asciiValue, character.isUppercase {
                value = (Int(ascii) - 65 + 2) % 10
            } else {
                return false
            }
            sum += index % 2 == 0 ? value : 2 * value
        }
        return characters[17].wholeNumberValue == (10 - sum % 10) % 10
    }

    /// UPU S10 (postal items): eight digits weighted 8 6 4 2 3 5 9 7; the check digit is
    /// 11 − sum mod 11, with 10 → 0 and 11 → 5.
    static func s10Check(_ digits: [Int]) -> Bool {
        let weights = [8, 6, 4, 2, 3, 5, 9, 7]
        let sum = zip(digits.prefix(8), weights).reduce(0) { $0 + $1.0 * $1.1 }
        var check = 11 - sum % 11
        if check == 10 { check = 0 } else if check == 11 { check = 5 }
        return digits[8] == check
    }

    /// USPS (Intelligent Mail package barcode): from the right of the first 21 digits, weights 3 and 1;
    /// the check digit brings the sum to a multiple of 10.
    static func weightedMod10(_ digits: [Int]) -> Bool {
        let body = digits.dropLast()
        var sum = 0
        for (index, digit) in body.reversed().enumerated() { sum += index % 2 == 0 ? 3 * digit : digit }
        return digits.last == (10 - sum % 10) % 10
    }

    /// FedEx (12 digits): from the right of the first 11, weights 1 3 7 repeating; the check digit is sum mod 11 mod 10.
    static func fedExCheck(_ digits: [Int]) -> Bool {
        let weights = [1, 3, 7]
        var sum = 0
        for (index, digit) in digits.dropLast().reversed().enumerated() { sum += digit * weights[index % 3] }
        return digits.last == sum % 11 % 10
    }
}

enum AddressRule {
    static let streetTypes = "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Parkway|Pkwy|Highway|Hwy|Square|Sq"
    static let states =
        "AL|AK|AZ|AR|CA|CO|CT|DE|DC|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY"
    /// A German street: a name ending in its type (`Hauptstraße`, `Lindenallee`), a name and
    /// its type (`Berliner Straße`), or a preposition and a noun (`Am Markt`, `Unter den Linden`)
    /// with a house number of three digits at most, so that a year after "Im Jahr" is none.
    static let germanStreet = #"\p{Lu}[\p{L}-]*(?:straße|strasse|str\.|weg|platz|allee|gasse|ring|damm|ufer|chaussee)|\p{Lu}[\p{L}-]* (?:Straße|Strasse|Weg|Platz|Allee|Gasse|Ring|Damm)|(?:Am|An der|An den|Im|In der|Zum|Zur|Auf der|Auf dem|Unter den|Hinter der) \p{Lu}[\p{L}-]+(?= \d{1,3}(?!\d))"#
    static let frenchStreet = #"(?:rue|avenue|av\.|boulevard|bd|place|allée|chemin|impasse|quai|cours|route)(?: (?:de la|de l'|du|des|de|d')?\s?[\p{L}'-]+){1,4}"#
    /// US: number, street, city, state, ZIP; German and Austrian, Swiss: street, number,
    /// postcode, town; French: number, street, postcode, town; UK: lines ending in a postcode.
    static let pattern =
        #"(?:\d{1,6} (?:[\p{Lu}\d][\p{L}\d'.-]* ){1,4}(?:"# + streetTypes + #")\.?(?:,? (?:Suite|Ste\.?|Apt\.?|Unit|#) ?[\w-]+)?,?\s+(?:\p{Lu}[\p{L}.'-]* ?){1,3}, (?:"# + states
        + #") \d{5}(?:-\d{4})?|(?:"# + germanStreet + #") \d{1,4}\s?[a-z]?,?\s+(?:D-|A-|CH-)?\d{4,5} \p{Lu}[\p{L}-]+(?: (?:am|an der|im|bei) \p{Lu}[\p{L}-]+)?|\d{1,4}(?: ?(?:bis|ter))?,? "# + frenchStreet
        + #",?\s+\d{5} \p{Lu}[\p{L}-]+(?: \d{1,2}e)?|\d{1,5} (?:[\p{Lu}][\p{L}'-]* ){1,4}(?:"# + streetTypes
        + #"|Close|Gardens|Mews|Row|Crescent)\.?,?\s+(?:\p{Lu}[\p{L}'-]* ?){1,3},? [A-Z]{1,2}\d[A-Z\d]? \d[A-Z]{2})(?![\w])"#
}

enum FlightRule {
    /// IATA designators of large airlines: a designator alone needs the word "flight" before it.
    static let airlines: Set<String> = [
        "AA", "UA", "DL", "WN", "AS", "B6", "NK", "F9", "HA", "AC", "WS", "BA", "LH", "AF", "KL", "IB", "AZ", "LX", "OS", "SN", "SK",
        "AY", "TP", "EI", "U2", "FR", "VY", "W6", "LO", "OK", "A3", "TK", "EK", "QR", "EY", "SV", "MS", "RJ", "ET", "SA", "KQ",
        "SQ", "CX", "JL", "NH", "QF", "NZ", "VA", "KE", "OZ", "CA", "MU", "CZ", "HU", "AI", "6E", "TG", "MH", "GA", "PR", "VN",
        "BR", "CI", "LA", "AV", "CM", "AM", "AR", "G3", "AD", "4U", "EW", "DY", "D8", "BT", "JU", "LY", "PS", "UX", "VS",
    ]

    static func parse(_ match: DataDetector.Match) -> DataDetector.Found? {
        if let designator = group(match, 1), let number = group(match, 2), let whole = group(match, 0) {
            // After the word "flight" any designator counts; the datum is the designator and number as they stand.
            guard let start = whole.ranges(of: designator).last?.lowerBound else { return nil }
            return DataDetector.Found(text: String(whole[start...]), value: .text(designator + number))
        }
        guard let designator = group(match, 3), let number = group(match, 4), airlines.contains(designator) else { return nil }
        return DataDetector.Found(value: .text(designator + number))
    }
}

enum MoneyRule {
    static let codes = "USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|CNY|INR|RUB|BRL|MXN|ZAR|SGD|HKD|KRW|TRY"
    static let symbols = "$€£¥"
    /// An amount: thousands grouped by comma, dot, space or apostrophe, then up to two decimals.
    static let amount = #"\d{1,3}(?:[,. ']\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?"#
    static let pattern =
        #"(?:(?:(US|CA|A|NZ|HK|S)?([$€£¥])\s?("# + amount + #"))|(?:("# + codes + #") ?("# + amount + #"))|(?:("# + amount
        + #") ?([€$£¥]|"# + codes + #")))(?![\w]|[.,]\d)"#

    static func parse(_ text: String, _ match: DataDetector.Match, region: String) -> DataDetector.Found? {
        let currency: String
        let number: String
        if let symbol = group(match, 2), let value = group(match, 3) {
            currency = code(symbol: symbol, prefix: group(match, 1), region: region)
            number = value
        } else if let code = group(match, 4), let value = group(match, 5) {
            currency = code
            number = value
        } else if let value = group(match, 6), let unit = group(match, 7) {
            currency = unit.count == 3 ? unit : code(symbol: unit, prefix: nil, region: region)
            number = value
        } else {
            return nil
        }
        guard let amount = decimal(number) else { return nil }
        return DataDetector.Found(value: .money(amount: amount, currency: currency))
    }

    static func code(symbol: String, prefix: String?, region: String) -> String {
        switch symbol {
        case "€": return "EUR"
        case "£": return "GBP"
        case "¥": return "JPY"
        default:
            switch prefix ?? "" {
            case "CA": return "CAD"
            case "A": return "AUD"
            case "NZ": return "NZD"
            case "HK": return "HKD"
            case "S": return "SGD"
            case "US": return "USD"
            default: return ["CA": "CAD", "AU": "AUD", "NZ": "NZD"][region] ?? "USD"
            }
        }
    }

    /// The amount as a decimal string: the last comma or dot followed by one or two digits
    /// is the decimal mark; every other separator groups thousands.
    static func decimal(_ text: String) -> String? {
        let characters = Array(text)
        var integer = "", fraction = ""
        if let mark = characters.lastIndex(where: { $0 == "." || $0 == "," }), (1...2).contains(characters.count - mark - 1) {
            integer = String(characters[..<mark].filter(\.isNumber))
            fraction = String(characters[(mark + 1)...])
        } else {
            integer = String(characters.filter(\.isNumber))
        }
        guard !integer.isEmpty else { return nil }
        let trimmed = String(integer.drop { $0 == "0" })
        return (trimmed.isEmpty ? "0" : trimmed) + (fraction.isEmpty ? "" : "." + fraction)
    }
}

enum DateRule {
    static let months: [(names: [String], number: Int)] = [
        (["january", "jan", "januar", "janvier"], 1), (["february", "feb", "februar", "février", "fevrier"], 2),
        (["march", "mar", "märz", "maerz", "mars"], 3), (["april", "apr", "avril"], 4), (["may", "mai"], 5),
        (["june", "jun", "juni", "juin"], 6), (["july", "jul", "juli", "juillet"], 7), (["august", "aug", "août", "aout"], 8),
        (["september", "sep", "sept"], 9), (["october", "oct", "oktober", "okt", "octobre"], 10),
        (["november", "nov", "novembre"], 11), (["december", "dec", "dezember", "dez", "décembre", "decembre"], 12),
    ]
    static let monthPattern = months.flatMap(\.names).sorted { $0.count > $1.count }.joined(separator: "|")
    /// ISO; day, month and year with dots or slashes; a month's name before or after the
    /// day. As a recognizer reads them: the day run into a month's name before it ("Jul15
    /// 1983"), the day and year run together after it ("May 102025": the year is the last
    /// four digits, 19xx or 20xx), and a day-first date's second dot read as a space
    /// ("18.10 2001", day and month of two digits each).
    static let pattern =
        #"(?:(\d{4})-(\d{2})-(\d{2})|(\d{1,2})([./])(\d{1,2})\5(\d{4})|(?i:("# + monthPattern + #"))\.? ?(\d{1,2})(?:(?:st|nd|rd|th)?,? |(?=(?:19|20)\d{2}))(\d{4})|(\d{1,2})(?:st|nd|rd|th)?\.? (?i:("#
        + monthPattern + #"))\.?,? (\d{4})|(\d{2})\.(\d{2}) (\d{4}))(?![\w]|[.,/-]\d)"#

    static func parse(_ match: DataDetector.Match, region: String) -> DataDetector.Found? {
        var year = 0, month = 0, day = 0
        if let y = group(match, 1).flatMap(Int.init), let m = group(match, 2).flatMap(Int.init), let d = group(match, 3).flatMap(Int.init) {
            (year, month, day) = (y, m, d)
        } else if let a = group(match, 4).flatMap(Int.init), let separator = group(match, 5), let b = group(match, 6).flatMap(Int.init),
            let y = group(match, 7).flatMap(Int.init)
        {
            year = y
            // A dot is day-first everywhere; a slash is month-first in the US unless the first number cannot be a month.
            let monthFirst = separator == "/" && ["US", "PH", "FM"].contains(region) && a <= 12 || separator == "/" && b > 12
            (month, day) = monthFirst ? (a, b) : (b, a)
        } else if let name = group(match, 8), let d = group(match, 9).flatMap(Int.init), let y = group(match, 10).flatMap(Int.init) {
            (year, month, day) = (y, monthNumber(name), d)
        } else if let d = group(match, 11).flatMap(Int.init), let name = group(match, 12), let y = group(match, 13).flatMap(Int.init) {
            (year, month, day) = (y, monthNumber(name), d)
        } else if let d = group(match, 14).flatMap(Int.init), let m = group(match, 15).flatMap(Int.init), let y = group(match, 16).flatMap(Int.init) {
            (year, month, day) = (y, m, d)
        } else {
            return nil
        }
        guard (1000...2999).contains(year), (1...12).contains(month), (1...daysIn(month, year)).contains(day) else { return nil }
        let iso = "\(year)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
        return DataDetector.Found(value: .text(iso))
    }

    static func monthNumber(_ name: String) -> Int {
        let lower = name.lowercased()
        return months.first { $0.names.contains(lower) }?.number ?? 0
    }

    static func daysIn(_ month: Int, _ year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

enum PhoneRule {
    /// Country calling codes and whether numbers are dialled within the country with a
    /// leading 0 (the trunk prefix E.164 leaves out).
    static let regions: [String: (code: String, trunkZero: Bool)] = [
        "US": ("1", false), "CA": ("1", false), "GB": ("44", true), "DE": ("49", true), "FR": ("33", true), "IT": ("39", false),
        "ES": ("34", false), "NL": ("31", true), "BE": ("32", true), "AT": ("43", true), "CH": ("41", true), "AU": ("61", true),
        "IE": ("353", true), "SE": ("46", true), "PL": ("48", false), "PT": ("351", false), "DK": ("45", false), "NO": ("47", false),
    ]

    /// A number dialled at home with the trunk prefix 0 (`04 36 61 60 58`) is none the region
    /// takes when the region's own numbers have no trunk prefix (the North American plan), and
    /// is left without a value. When every international number of the same text has one
    /// country code, and its country dials at home with a 0, the page says where it was
    /// written: such numbers take that code (a French sign-up sheet that lists `+33 5 79 98 58
    /// 65` beside `04 36 61 60 58`). A region whose numbers take the 0 keeps its own reading.
    static func dialHomeNumbers(_ data: inout [DetectedData], region: String) {
        guard regions[region]?.trunkZero != true else { return }
        // Each international number's country code: the longest known code its digits start with.
        let codes = Set(
            data.compactMap { datum -> String? in
                guard datum.kind == .phone, case .text(let value)? = datum.value, value.hasPrefix("+") else { return nil }
                let digits = value.dropFirst()
                return regions.values.map(\.code).filter { digits.hasPrefix($0) }.max { $0.count < $1.count }
            })
        guard codes.count == 1, let code = codes.first, regions.values.contains(where: { $0.code == code && $0.trunkZero }) else { return }
        for index in data.indices where data[index].kind == .phone && data[index].value == nil {
            let digits = data[index].text.filter(\.isNumber)
            guard digits.hasPrefix("0"), !data[index].text.hasPrefix("+"), (7...12).contains(digits.count) else { continue }
            data[index].value = .text("+" + code + digits.dropFirst())
        }
    }

    /// A recognizer reads a leading `+` as `*` or `#`. A number read so is taken when it is
    /// one beyond doubt: a North American number of 11 digits, or a country code of `regions`
    /// standing as a group of its own with 10 to 13 digits in all.
    static func parse(_ text: String, region: String) -> DataDetector.Found? {
        if let first = text.first, first == "*" || first == "#" {
            let rest = text.dropFirst(), digits = Array(rest.filter(\.isNumber))
            let code = rest.prefix { $0.isNumber }
            let northAmerican = code == "1" && digits.count == 11 && digits[1] >= "2" && digits[4] >= "2"
            let grouped = code != "1" && regions.values.contains { $0.code == code } && rest.dropFirst(code.count).first?.isNumber == false
                && (10...13).contains(digits.count)
            guard northAmerican || grouped else { return nil }
            return parse("+" + rest, region: region)
        }
        let digits = text.filter(\.isNumber)
        if text.hasPrefix("+") {
            // A "(0)" after the country code is the trunk prefix written for callers at home.
            let international = text.replacing("(0)", with: "").filter(\.isNumber)
            guard (8...15).contains(international.count) else { return nil }
            return DataDetector.Found(value: .text("+" + international))
        }
        guard let home = regions[region] else { return DataDetector.Found(value: nil) }
        if digits.hasPrefix("0") {
            guard home.trunkZero, (7...12).contains(digits.count) else {
                // Dialled at home elsewhere: a number, but not one E.164 can be written for here.
                return (7...12).contains(digits.count) ? DataDetector.Found(value: nil) : nil
            }
            return DataDetector.Found(value: .text("+" + home.code + digits.dropFirst()))
        }
        // The North American plan: ten digits, neither the area code nor the exchange starting with 0 or 1.
        let ten = Array(digits)
        guard ten.count == 10, ten[0] >= "2", ten[3] >= "2" else { return nil }
        return DataDetector.Found(value: home.code == "1" ? .text("+1" + digits) : nil)
    }
}

/// A number and its unit. A recognizer reads a blurred "kg" as "kq" (no unit of its own),
/// and often reads a full stop between a number and its unit ("25.3.cm", "14.1. cm"): both
/// are taken, the stop only before a unit of two characters or more ("3. m" is not 3 metres).
enum MeasurementRule {
    static let units = [
        "km/h", "mph", "kph", "m/s", "°C", "°F", "ºC", "ºF", "km", "cm", "mm", "µm", "m", "mi", "ft", "yd", "inches", "inch", "in\\.", "″", "kg", "kq", "mg",
        "g", "lbs", "lb", "oz", "t", "ml", "mL", "cl", "dl", "l", "L", "gal", "fl oz", "m²", "m2", "km²", "sq ft", "ha", "acres", "kW", "W", "kWh",
        "V", "mAh", "Hz", "kHz", "MHz", "GHz",
    ]
    static let pattern =
        #"(\d+(?:[.,]\d+)?)(\.?) ?("# + units.sorted { $0.count > $1.count }.joined(separator: "|") + #")(?![\p{L}\d²])"#

    static func parse(_ match: DataDetector.Match) -> DataDetector.Found? {
        guard let number = group(match, 1), let unit = group(match, 3), let value = Double(number.replacing(",", with: ".")),
            group(match, 2) ?? "" == "" || unit.count >= 2
        else {
            return nil
        }
        let named = unit == "kq" ? "kg" : unit.replacing("º", with: "°")
        return DataDetector.Found(value: .measurement(value: value, unit: named))
    }
}
