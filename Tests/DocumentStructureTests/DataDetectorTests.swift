import Testing

@testable import DocumentStructure

/// Each kind of detected data on text with a known answer, and the near-misses that must not match.
@Suite("Detected data")
struct DataDetectorTests {
    let detector = DataDetector(region: "US")

    /// The single datum found in `text`, which must be of `kind`.
    func only(_ text: String, _ kind: DetectedData.Kind, detector: DataDetector? = nil) throws -> DetectedData {
        let found = (detector ?? self.detector).detect(in: text)
        try #require(found.count == 1, "found \(found.map { "\($0.kind): \($0.text)" }) in \(text)")
        #expect(found[0].kind == kind)
        return found[0]
    }

    @Test func emailAddressesAndTheirRangeInScalars() throws {
        let datum = try only("Café: write to anna.berg+news@mail.example.co.uk today.", .email)
        #expect(datum.text == "anna.berg+news@mail.example.co.uk")
        // "Café: write to " is 15 scalars with the precomposed é.
        #expect(datum.range == 15..<48)
        #expect(datum.value == .text("anna.berg+news@mail.example.co.uk"))
    }

    @Test func urlsWithAndWithoutASchemeAndNotTheirFullStop() throws {
        #expect(try only("See https://example.org/a?b=1.", .url).text == "https://example.org/a?b=1")
        let bare = try only("Visit www.example.com/signup, please", .url)
        #expect(bare.text == "www.example.com/signup")
        #expect(bare.value == .text("http://www.example.com/signup"))
        #expect(try only("example.de hosts it", .url).value == .text("http://example.de"))
    }

    @Test func aURLReadWithASpaceAfterItsSchemeOrWww() throws {
        let scheme = try only("Website: https: //www.example.com/optimism/51 Name", .url)
        #expect(scheme.text == "https: //www.example.com/optimism/51")
        #expect(scheme.value == .text("https://www.example.com/optimism/51"))
        let www = try only("mation at www. example.org/stove The tent", .url)
        #expect(www.text == "www. example.org/stove")
        #expect(www.value == .text("http://www.example.org/stove"))
        // A sentence after "www." is no address: its next word ends in no domain.
        #expect(detector.detect(in: "type www. The rest follows").isEmpty)
    }

    @Test func anEmailAddressReadWithASpaceBesideItsAtSign() throws {
        let before = try only("write to cderbent @example.net today", .email)
        #expect(before.text == "cderbent @example.net")
        #expect(before.range == 9..<30)
        #expect(before.value == .text("cderbent@example.net"))
        #expect(try only("mail cchalcis @ example.org", .email).value == .text("cchalcis@example.org"))
        // Two spaces are two words apart, not an address.
        #expect(detector.detect(in: "ask  @ example.org").allSatisfy { $0.kind != .email })
    }

    @Test func aDotInAnEmailAddressesNameReadAsAComma() throws {
        let comma = try only("mail info,anna@example.org", .email)
        #expect(comma.text == "info,anna@example.org")
        #expect(comma.value == .text("info.anna@example.org"))
        // A comma and a space part words, and so does a full stop and a space (a sentence's
        // end): the name is the word after them.
        #expect(try only("ask Anna, juana@example.org", .email).value == .text("juana@example.org"))
        #expect(try only("Write to us. anna@example.org", .email).value == .text("anna@example.org"))
        // Addresses listed with commas stay apart.
        let listed = detector.detect(in: "a.berg@example.org,juana@example.net").filter { $0.kind == .email }
        #expect(listed.map(\.value) == [.text("a.berg@example.org"), .text("juana@example.net")])
    }

    @Test func aDatumSplitOverTableCellsIsFoundWhereTheCellsHoldNone() throws {
        // A form's label and value taken for a table row: the address runs over three cells.
        let found = detector.detect(in: "Address:\t2082 Main Street,\tAustin,\tTX 78701")
        try #require(found.count == 1)
        #expect(found[0].kind == .postalAddress)
        #expect(found[0].text == "2082 Main Street,\tAustin,\tTX 78701")
        #expect(found[0].range == 9..<43)
        #expect(found[0].value == .text("2082 Main Street, Austin, TX 78701"))
        // Cells that hold their own data keep them: the amount and the date are not joined into anything.
        let row = detector.detect(in: "Anna Berg\t$12.50\t03/14/2026")
        #expect(row.map(\.kind) == [.money, .date])
        #expect(row.map(\.text) == ["$12.50", "03/14/2026"])
    }

    @Test func anEmailAddressIsNotAlsoAURL() throws {
        #expect(try only("mail info@example.com", .email).text == "info@example.com")
    }

    @Test func phoneNumbersInE164() throws {
        #expect(try only("Call (212) 555-0147 now", .phone).value == .text("+12125550147"))
        #expect(try only("Call 212-555-0147", .phone).value == .text("+12125550147"))
        #expect(try only("Tel. +1 212 555 0147", .phone).value == .text("+12125550147"))
        #expect(try only("Tel. +49 30 1234567", .phone).value == .text("+49301234567"))
        #expect(try only("Tel. +44 (0)20 7946 0958", .phone).value == .text("+442079460958"))
        let berlin = DataDetector(region: "DE")
        #expect(try only("Tel. 030 1234567", .phone, detector: berlin).value == .text("+49301234567"))
        // Dialled at home in a country whose region was not given: a phone number with no E.164 form.
        #expect(try only("Tel. 030 1234567", .phone).value == nil)
        // A French number in five pairs, whole.
        #expect(try only("Call 04 50 87 75 65 now", .phone, detector: DataDetector(region: "FR")).value == .text("+33450877565"))
        #expect(try only("Call 04 50 87 75 65 now", .phone).text == "04 50 87 75 65")
        // An area code whose opening bracket was not read.
        #expect(try only("Call 415) 555-0149 now", .phone).value == .text("+14155550149"))
        #expect(detector.detect(in: "call 123) 555-0147").isEmpty)
        // A number right after a year: the year's last digits and the number, read as one
        // number dialled at home, are refused after the year's digit, and the number is still found.
        let afterYear = detector.detect(in: "May 28, 2026 212-555-0147 now")
        #expect(afterYear.map(\.kind) == [.date, .phone])
        #expect(afterYear.last?.value == .text("+12125550147"))
    }

    /// A number dialled at home with a 0, on a page whose international numbers share one
    /// country code that dials so, takes that code, whatever region the North American plan
    /// leaves without one; a page of two codes, a code whose country has no trunk 0, or a
    /// region whose own numbers take the 0, settles nothing.
    @Test func aNumberDialledAtHomeTakesThePagesCountryCode() {
        let sheet = "Ana +33 5 79 98 58 65\nLuc 04 36 61 60 58\tRoom 05 38 3128 73"
        #expect(detector.detect(in: sheet).map(\.value) == [.text("+33579985865"), .text("+33436616058"), .text("+33538312873")])
        let german = "Zentrale +49 221 3597200, Köln 0221 6068811"
        #expect(detector.detect(in: german).map(\.value) == [.text("+492213597200"), .text("+492216068811")])
        // The same number alone, or beside numbers of two countries, or of a country without a trunk 0.
        #expect(detector.detect(in: "Luc 04 36 61 60 58").map(\.value) == [nil])
        let two = "Paris +33 1 39 21 77 33, Berlin +49 30 1234567, Lyon 04 36 61 60 58"
        #expect(detector.detect(in: two).map(\.value) == [.text("+33139217733"), .text("+49301234567"), nil])
        let rome = "Roma +39 06 6982 1234, Lyon 04 36 61 60 58"
        #expect(detector.detect(in: rome).map(\.value).last == .some(nil))
        // A North American number beside them is read by the region as before.
        #expect(detector.detect(in: "+33 5 79 98 58 65 or (212) 555-0147").map(\.value) == [.text("+33579985865"), .text("+12125550147")])
        // In Germany, a French page's home numbers are still read as German ones.
        #expect(DataDetector(region: "DE").detect(in: sheet).map(\.value)[1] == .text("+49436616058"))
    }

    @Test func aPlusReadAsAStarOrAHash() throws {
        let star = try only("Tel. *1 206 555 0128", .phone)
        #expect(star.text == "*1 206 555 0128")
        #expect(star.value == .text("+12065550128"))
        #expect(try only("Tel. #33 1 39 21 77 33", .phone).value == .text("+33139217733"))
        // An order number is no phone number: no country code standing alone, or too few digits.
        #expect(detector.detect(in: "Order #12 345 678").allSatisfy { $0.kind != .phone })
        #expect(detector.detect(in: "Order #1 206 555").allSatisfy { $0.kind != .phone })
        #expect(detector.detect(in: "Item #33 1 39 21").allSatisfy { $0.kind != .phone })
        // A number after a `#` that is none is still found.
        #expect(try only("Room #4 212-555-0147", .phone).value == .text("+12125550147"))
    }

    @Test func anIPAddressOrAPartNumberIsNotAPhoneNumber() {
        #expect(detector.detect(in: "server 192.168.10.4 is up").isEmpty)
        #expect(detector.detect(in: "part 123-45-6789-0 in stock").allSatisfy { $0.kind != .phone })
        // The North American plan has no area code starting with 1.
        #expect(detector.detect(in: "call 123-555-0147").isEmpty)
    }

    @Test func datesInCommonFormsAsISO8601() throws {
        #expect(try only("due 2026-03-14.", .date).value == .text("2026-03-14"))
        #expect(try only("due 14.03.2026", .date).value == .text("2026-03-14"))
        #expect(try only("due March 14, 2026", .date).value == .text("2026-03-14"))
        #expect(try only("due 14 March 2026", .date).value == .text("2026-03-14"))
        #expect(try only("due Mar 14 2026", .date).value == .text("2026-03-14"))
        // The day run into the month's name, as a recognizer reads it.
        #expect(try only("born Jul15 1983", .date).value == .text("1983-07-15"))
        #expect(detector.detect(in: "in Jun2024").isEmpty)
        #expect(try only("due 14th Mar. 2026", .date).value == .text("2026-03-14"))
        // Slashes: month first in the US, day first elsewhere, unless the first number cannot be a month.
        #expect(try only("due 03/04/2026", .date).value == .text("2026-03-04"))
        #expect(try only("due 03/04/2026", .date, detector: DataDetector(region: "GB")).value == .text("2026-04-03"))
        #expect(try only("due 14/03/2026", .date).value == .text("2026-03-14"))
        #expect(try only("am 1. Februar 2024", .date).value == .text("2024-02-01"))
        // As a recognizer reads them: the day run into the year, a second dot read as a space.
        #expect(try only("due Jun 72027", .date).value == .text("2027-06-07"))
        #expect(try only("due May 102025", .date).value == .text("2025-05-10"))
        #expect(try only("born Jan 11969", .date).value == .text("1969-01-01"))
        #expect(try only("born 18.10 2001", .date).value == .text("2001-10-18"))
    }

    @Test func aVersionNumberAYearAloneOrADayThatDoesNotExistIsNotADate() {
        #expect(detector.detect(in: "version 2.4.1 released").isEmpty)
        #expect(detector.detect(in: "v1.2.2024 build").isEmpty)
        #expect(detector.detect(in: "in 2026 we grew").isEmpty)
        #expect(detector.detect(in: "on 2026-02-30").isEmpty)
        #expect(detector.detect(in: "on 31.04.2026").isEmpty)
        #expect(detector.detect(in: "on 29.02.2025").isEmpty)
        #expect(detector.detect(in: "on 29.02.2024").count == 1)
        // A month's name before digits that end in no year, and a price before a count.
        #expect(detector.detect(in: "Jun 720271 rows").isEmpty)
        #expect(detector.detect(in: "May 12345").isEmpty)
        #expect(detector.detect(in: "costs 12.50 2024 units").isEmpty)
    }

    @Test func moneyWithSymbolsAndCodesAsDecimalAmounts() throws {
        #expect(try only("costs $12.50 each", .money).value == .money(amount: "12.50", currency: "USD"))
        #expect(try only("costs €1.234,56", .money).value == .money(amount: "1234.56", currency: "EUR"))
        #expect(try only("costs 12,50 €", .money).value == .money(amount: "12.50", currency: "EUR"))
        #expect(try only("costs 12.50 USD", .money).value == .money(amount: "12.50", currency: "USD"))
        #expect(try only("costs USD 1,200", .money).value == .money(amount: "1200", currency: "USD"))
        #expect(try only("costs £8.99", .money).value == .money(amount: "8.99", currency: "GBP"))
        #expect(try only("costs 1 200 EUR", .money).value == .money(amount: "1200", currency: "EUR"))
        #expect(try only("costs CA$20", .money).value == .money(amount: "20", currency: "CAD"))
    }

    @Test func measurementsWithTheirUnits() throws {
        #expect(try only("weighs 5 kg", .measurement).value == .measurement(value: 5, unit: "kg"))
        #expect(try only("is 2,5 cm wide", .measurement).value == .measurement(value: 2.5, unit: "cm"))
        #expect(try only("keep at 20 °C", .measurement).value == .measurement(value: 20, unit: "°C"))
        #expect(try only("at 10 mph", .measurement).value == .measurement(value: 10, unit: "mph"))
        #expect(try only("250ml bottle", .measurement).value == .measurement(value: 250, unit: "ml"))
        // As a recognizer reads them: a full stop before the unit, "kq" for "kg".
        #expect(try only("is 25.3.cm deep", .measurement).value == .measurement(value: 25.3, unit: "cm"))
        #expect(try only("is 14.1. cm deep", .measurement).value == .measurement(value: 14.1, unit: "cm"))
        #expect(try only("weighs 10 kq", .measurement).value == .measurement(value: 10, unit: "kg"))
        // A number followed by a word that merely starts like a unit is not a measurement, nor
        // a number, its full stop and a one-letter word.
        #expect(detector.detect(in: "5 miles of 3 gloves and 2 kites").isEmpty)
        #expect(detector.detect(in: "see step 3. t is the time").isEmpty)
    }

    @Test func postalAddressesInUSAndEuropeanForms() throws {
        #expect(try only("Send it to 1600 Main Street, Springfield, IL 62704 soon", .postalAddress).text == "1600 Main Street, Springfield, IL 62704")
        #expect(try only("Adresse: Hauptstraße 12, 10115 Berlin", .postalAddress).text == "Hauptstraße 12, 10115 Berlin")
        // German streets named by a preposition and a noun.
        #expect(try only("Treffpunkt: Am Markt 55, 20095 Hamburg.", .postalAddress).text == "Am Markt 55, 20095 Hamburg")
        #expect(try only("Unter den Linden 77, 10117 Berlin", .postalAddress).text == "Unter den Linden 77, 10117 Berlin")
        #expect(detector.detect(in: "Im Jahr 2024 kamen 12000 Gäste").isEmpty)
        #expect(detector.detect(in: "Im Jahr 2023, 4500 Besucher").isEmpty)
        #expect(try only("chez 12 rue de la Paix, 75002 Paris", .postalAddress).text == "12 rue de la Paix, 75002 Paris")
        // Across two lines, as an address block prints.
        let block = try only("Garden Club\n42 Oak Avenue\nPortland, OR 97205", .postalAddress)
        #expect(block.text == "42 Oak Avenue\nPortland, OR 97205")
        #expect(block.value == .text("42 Oak Avenue Portland, OR 97205"))
    }

    @Test func flightNumbersOfKnownAirlinesOrAfterTheWordFlight() throws {
        #expect(try only("on UA 123 tomorrow", .flightNumber).value == .text("UA123"))
        #expect(try only("on LH400", .flightNumber).value == .text("LH400"))
        let named = try only("Flight ZZ 88 boards", .flightNumber)
        #expect(named.text == "ZZ 88")
        #expect(named.range == 7..<12)
        // Two capitals and a number without the word and not a known airline: a room, a grid square.
        #expect(detector.detect(in: "room QX 12").isEmpty)
    }

    @Test func trackingNumbersOnlyWithTheirCheckDigit() throws {
        // UPS: 1Z + 15 characters + check digit.
        #expect(try only("UPS 1Z999AA10123456784 sent", .trackingNumber).value == .text("1Z999AA10123456784"))
        #expect(detector.detect(in: "UPS 1Z999AA10123456785 sent").isEmpty)
        // UPU S10: RA 12345678 5 DE (weights 8 6 4 2 3 5 9 7: sum 204, 11 − 204 mod 11 = 5).
        let s10 = "RA123456785DE"
        #expect(try only("parcel \(s10)", .trackingNumber).value == .text(s10))
        #expect(detector.detect(in: "parcel RA123456784DE").isEmpty)
        // FedEx, 12 digits: the twelfth from weights 1 3 7 from the right, mod 11, mod 10.
        let body = [9, 8, 6, 5, 4, 3, 2, 1, 0, 9, 8]
        let fedEx = body.map(String.init).joined() + String(fedExDigit(body))
        let wrong = body.map(String.init).joined() + String((fedExDigit(body) + 1) % 10)
        #expect(try only("FedEx \(fedEx)", .trackingNumber).value == .text(fedEx))
        #expect(detector.detect(in: "FedEx \(wrong)").isEmpty)
        // USPS, 22 digits in groups of four; the check digit from weights 3 and 1 from the right.
        #expect(try only("USPS 9400 1000 0000 0000 0000 06", .trackingNumber).value == .text("9400100000000000000006"))
        #expect(detector.detect(in: "USPS 9400 1000 0000 0000 0000 07").isEmpty)
    }

    @Test func overlapsKeepTheMoreSpecificKind() throws {
        let found = detector.detect(in: "Ship to 1600 Main Street, Springfield, IL 62704 or mail ship@example.com by 2026-03-14.")
        #expect(found.map(\.kind) == [.postalAddress, .email, .date])
    }

    @Test func digitsOfOtherScriptsAreNotParsedAsNumbers() {
        // Full-width and Arabic-Indic digits: not a date, a phone number or an amount here.
        #expect(detector.detect(in: "on ２０２４-０１-０５ and ٢٠٢٤-٠١-٠٥ call (２１２) ５５５-０１４７").isEmpty)
    }

    @Test func noDataInPlainProse() {
        #expect(detector.detect(in: "The garden opens in spring and closes when the first frost comes.").isEmpty)
    }

    func fedExDigit(_ body: [Int]) -> Int {
        let weights = [1, 3, 7]
        var sum = 0
        for (index, digit) in body.reversed().enumerated() { sum += digit * weights[index % 3] }
        return sum % 11 % 10
    }
}
