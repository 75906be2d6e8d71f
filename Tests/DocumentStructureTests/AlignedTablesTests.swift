import ImagingCore
import Testing

@testable import DocumentStructure

@Suite("Tables from the alignment of words")
struct AlignedTablesTests {
    func word(_ text: String, x: Int, y: Int) -> PlacedWord {
        PlacedWord(text: text, box: PixelRect(x: x, y: y, width: 12 * text.count, height: 20), block: 0, paragraph: 0, line: 0)
    }

    /// A header row and a first row whose number was not read, 28 pixels below it (under the
    /// rows' pitch of 40), then two full rows.
    var rows: [WordRow] {
        [
            [word("No", x: 0, y: 0), word("Name", x: 100, y: 0), word("Phone", x: 300, y: 0)],
            [word("Santee", x: 100, y: 28), word("555-0162", x: 300, y: 28)],
            [word("2", x: 0, y: 68), word("Annapolis", x: 100, y: 68), word("555-0107", x: 300, y: 68)],
            [word("3", x: 0, y: 108), word("Ravel", x: 100, y: 108), word("555-0115", x: 300, y: 108)],
        ].map { WordRow($0, gapFactor: 0.75) }
    }

    @Test func aRowUnderTheLastWithItsFirstCellEmptyContinuesIt() {
        let grid = AlignedTables.cells(rows: rows, separators: [50, 250], height: 20, along: { x, _ in Double(x) })
        #expect(grid.count == 3)
        #expect(grid[0].map { $0?.text } == ["No", "Name Santee", "Phone 555-0162"])
    }

    @Test func aRuleBetweenThemKeepsThemApart() {
        let rule = PixelRect(x: 0, y: 23, width: 420, height: 2)
        let grid = AlignedTables.cells(rows: rows, separators: [50, 250], height: 20, along: { x, _ in Double(x) }, rules: [rule])
        #expect(grid.count == 4)
        #expect(grid[0].map { $0?.text } == ["No", "Name", "Phone"])
        #expect(grid[1].map { $0?.text } == [nil, "Santee", "555-0162"])
        // A rule elsewhere (above the header, or beside the table) changes nothing.
        let elsewhere = [PixelRect(x: 0, y: -6, width: 420, height: 2), PixelRect(x: 600, y: 23, width: 200, height: 2)]
        #expect(AlignedTables.cells(rows: rows, separators: [50, 250], height: 20, along: { x, _ in Double(x) }, rules: elsewhere).count == 3)
    }

    /// Rows of a page turned about two degrees (3.5 pixels down per 100 across): a prose line
    /// of four words, and table rows whose second cell, 400 pixels to the right, sits 14
    /// pixels lower, under half of a 20-pixel word's height of overlap when compared level.
    @Test func aTiltedTableRowStaysOneRowAlongThePagesTilt() {
        func tilted(_ text: String, x: Int, y: Int) -> PlacedWord { word(text, x: x, y: y + x * 35 / 1000) }
        let words = [
            tilted("one", x: 0, y: 0), tilted("two", x: 60, y: 0), tilted("three", x: 120, y: 0), tilted("four", x: 200, y: 0),
            tilted("Box", x: 0, y: 60), tilted("£62.50", x: 400, y: 60),
            tilted("Jobholder", x: 0, y: 100), tilted("£87.26", x: 400, y: 100),
        ]
        // Compared level, each cell is a row of its own.
        #expect(WordRow.rows(words, gapFactor: 0.75, slope: 0).count == 5)
        let rows = WordRow.rows(words, gapFactor: 0.75)
        #expect(rows.map { $0.words.map(\.text) } == [["one", "two", "three", "four"], ["Box", "£62.50"], ["Jobholder", "£87.26"]])
        #expect(rows[2].segments.count == 2)
    }

    /// A form's table whose rules part every row, and whose first name is too long for its
    /// cell: its second line, alone in the first column, is the same row's.
    @Test func aWrappedFirstCellStaysInItsRowWhereRulesPartTheRows() {
        let lines = [
            [word("Name", x: 0, y: 0), word("Relation", x: 200, y: 0)],
            [word("Swindon", x: 0, y: 46), word("Child", x: 200, y: 46)],
            [word("Kreisler", x: 0, y: 82)],
            [word("Olcott", x: 0, y: 128), word("Partner", x: 200, y: 128)],
            [word("Illyricum", x: 0, y: 174), word("Child", x: 200, y: 174)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let rules = [34, 116, 162].map { PixelRect(x: 0, y: $0, width: 300, height: 2) }
        let grid = AlignedTables.cells(rows: lines, separators: [150], height: 20, along: { x, _ in Double(x) }, rules: rules)
        #expect(grid.map { $0.map { $0?.text } } == [["Name", "Relation"], ["Swindon Kreisler", "Child"], ["Olcott", "Partner"], ["Illyricum", "Child"]])
        // With the header's rule alone, the line is the same row's only as long as it stands
        // nearer the row above than any two rows of cells stand: 36 pixels of 46 is; 46 is not.
        let header = AlignedTables.cells(rows: lines, separators: [150], height: 20, along: { x, _ in Double(x) }, rules: [rules[0]])
        #expect(header.count == 4)
        var spaced = lines.map(\.words)
        spaced[2] = [word("Kreisler", x: 0, y: 92)]
        spaced[3] = spaced[3].map { word($0.text, x: $0.box.x, y: 138) }
        spaced[4] = spaced[4].map { word($0.text, x: $0.box.x, y: 184) }
        let apart = AlignedTables.cells(rows: spaced.map { WordRow($0, gapFactor: 0.75) }, separators: [150], height: 20, along: { x, _ in Double(x) }, rules: [rules[0]])
        #expect(apart.count == 5)
    }

    /// A price list without rules: its rows 40 pixels apart, and a long first cell's second line
    /// 31 pixels under its row (over three quarters of the pitch, yet nearer than any two rows).
    @Test func aWrappedFirstCellNearerThanAnyTwoRowsStaysInItsRow() {
        let lines = [
            [word("Item", x: 0, y: 0), word("Size", x: 200, y: 0), word("Price", x: 300, y: 0)],
            [word("Confiture", x: 0, y: 40), word("34.4", x: 200, y: 40), word("108.40", x: 300, y: 40)],
            [word("Cuesta", x: 0, y: 80), word("pashalik", x: 84, y: 80), word("44.2", x: 200, y: 80), word("89.94", x: 300, y: 80)],
            [word("sprinter", x: 0, y: 111)],
            [word("Madrono", x: 0, y: 151), word("74.7", x: 200, y: 151), word("75", x: 300, y: 151)],
            [word("Proved", x: 0, y: 191), word("38.6", x: 200, y: 191), word("116.39", x: 300, y: 191)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let grid = AlignedTables.cells(rows: lines, separators: [190, 290], height: 20, along: { x, _ in Double(x) })
        #expect(grid.map { $0[0]?.text } == ["Item", "Confiture", "Cuesta pashalik sprinter", "Madrono", "Proved"])
        // A line at the rows' own pitch is a row of its own (a category, a row whose other cells are empty).
        var level = lines.map(\.words)
        level[3] = [word("sprinter", x: 0, y: 120)]
        level[4] = level[4].map { word($0.text, x: $0.box.x, y: 160) }
        level[5] = level[5].map { word($0.text, x: $0.box.x, y: 200) }
        let rows = AlignedTables.cells(rows: level.map { WordRow($0, gapFactor: 0.75) }, separators: [190, 290], height: 20, along: { x, _ in Double(x) })
        #expect(rows.map { $0[0]?.text } == ["Item", "Confiture", "Cuesta pashalik", "sprinter", "Madrono", "Proved"])
    }

    /// A sign-up sheet ruled across, whose header takes two rows: "No." and "Name" beside
    /// "Contact", which is centred over "Email" and "Phone" in the row under it. The header's
    /// cells do not line up with the body's, so the run of rows starts at the first name.
    var twoRowHeader: [WordRow] {
        [
            [word("No.", x: 0, y: 0), word("Name", x: 60, y: 0), word("Contact", x: 328, y: 0)],
            [word("Email", x: 200, y: 32), word("Phone", x: 420, y: 32)],
            [word("1", x: 24, y: 70), word("Ann", x: 60, y: 70), word("ann@ex.org", x: 200, y: 70), word("0343894640", x: 420, y: 70)],
            [word("2", x: 24, y: 100), word("Bob", x: 60, y: 100), word("bob@ex.org", x: 200, y: 100), word("0498527072", x: 420, y: 100)],
            [word("3", x: 24, y: 130), word("Cy", x: 60, y: 130), word("cy@ex.org", x: 200, y: 130), word("0544987815", x: 420, y: 130)],
        ].map { WordRow($0, gapFactor: 0.75) }
    }

    /// The rules above the header, under "Contact" (over its two columns only), between the
    /// header and the body, and under the table.
    let twoRowHeaderRules = [
        PixelRect(x: -5, y: -9, width: 550, height: 2), PixelRect(x: 195, y: 25, width: 350, height: 2),
        PixelRect(x: -5, y: 60, width: 550, height: 2), PixelRect(x: -5, y: 160, width: 550, height: 2),
    ]

    @Test func aTwoRowHeaderBoxedByTheRulesIsTheTablesHeader() throws {
        let found = try #require(AlignedTables.tables(in: twoRowHeader, skipping: [], rules: twoRowHeaderRules).first)
        #expect(found.rows == [0, 1, 2, 3, 4])
        #expect(found.table.rows == 5)
        #expect(found.table.columns == 4)
        let cells = found.table.cells.map { "\($0.row),\($0.column)x\($0.columnSpan) \($0.text)" }
        #expect(Array(cells.prefix(6)) == ["0,0x1 No.", "0,1x1 Name", "0,2x2 Contact", "1,2x1 Email", "1,3x1 Phone", "2,0x1 1"])
    }

    @Test func aTwoRowHeaderWithoutTheTablesRulesStaysOut() {
        // Without rules, or without the rule between the header and the body, the header's rows
        // are not the table's: a form's lines above a table are set the same way.
        #expect(AlignedTables.tables(in: twoRowHeader, skipping: []).map(\.rows) == [[2, 3, 4]])
        let noDivider = twoRowHeaderRules.filter { $0.y != 60 }
        #expect(AlignedTables.tables(in: twoRowHeader, skipping: [], rules: noDivider).map(\.rows) == [[2, 3, 4]])
        // Without the rule above "No.", the rule under "Contact" boxes the row under it alone.
        let noTop = twoRowHeaderRules.filter { $0.y != -9 }
        #expect(AlignedTables.tables(in: twoRowHeader, skipping: [], rules: noTop).map(\.rows) == [[1, 2, 3, 4]])
    }

    /// A heading whose short middle word the row chaining left out ("of", read as a row of its
    /// own level with "Date" and "birth"): it joins its cell in its place along the line.
    @Test func aWordLeftOutOfItsLineJoinsItsCellInItsPlace() {
        let rows = [
            WordRow([word("Name", x: 0, y: 0), word("Date", x: 200, y: 0), word("birth", x: 284, y: 0)], gapFactor: 0.75),
            WordRow([word("of", x: 254, y: 2)], gapFactor: 0.75),
            WordRow([word("Ann", x: 0, y: 40), word("1990", x: 200, y: 40)], gapFactor: 0.75),
            WordRow([word("Bob", x: 0, y: 80), word("1991", x: 200, y: 80)], gapFactor: 0.75),
        ]
        let grid = AlignedTables.cells(rows: rows, separators: [150], height: 20, along: { x, _ in Double(x) })
        #expect(grid.count == 3)
        #expect(grid[0][1]?.text == "Date of birth")
        #expect(grid[0][1]?.words.map(\.text) == ["Date", "of", "birth"])
    }

    /// A sign-up sheet whose fourth name wrapped: "Ascanius" stands under "Machmeter", in
    /// the second column, and the last row stands 55 pixels under the fourth (more than 2.5
    /// word heights) but 33 under the wrapped line.
    @Test func aWrappedLaterCellKeepsTheRunGoing() throws {
        let lines = [
            [word("No.", x: 0, y: 0), word("Name", x: 60, y: 0), word("Email", x: 240, y: 0), word("Phone", x: 420, y: 0)],
            [word("1", x: 0, y: 40), word("Horeb", x: 60, y: 40), word("h@x.net", x: 240, y: 40), word("0895088122", x: 420, y: 40)],
            [word("2", x: 0, y: 80), word("Girgenti", x: 60, y: 80), word("g@x.com", x: 240, y: 80), word("0402691061", x: 420, y: 80)],
            [word("4", x: 0, y: 120), word("Machmeter", x: 60, y: 120), word("m@x.net", x: 240, y: 120), word("0305473251", x: 420, y: 120)],
            [word("Ascanius", x: 60, y: 142)],
            [word("5", x: 0, y: 195), word("Murcia", x: 60, y: 195), word("c@x.org", x: 240, y: 195), word("4940360058", x: 420, y: 195)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let found = try #require(AlignedTables.tables(in: lines, skipping: []).first)
        #expect(found.rows == [0, 1, 2, 3, 4, 5])
        #expect(found.table.rows == 5)
        #expect(found.table.cells.filter { $0.row == 3 }.map(\.text) == ["4", "Machmeter Ascanius", "m@x.net", "0305473251"])
        // A line reaching under two cells is no cell's second line: the run ends at the fourth row.
        var across = lines
        across[4] = WordRow([word("Ascanius", x: 60, y: 142), word("and", x: 160, y: 142), word("more", x: 205, y: 142)], gapFactor: 0.75)
        #expect(AlignedTables.tables(in: across, skipping: []).first?.rows == [0, 1, 2, 3])
    }

    /// A sheet whose rules part every row: "Confucius", the first name's wrapped second word,
    /// stands 32 pixels under its row, farther than three quarters of the rows' 40-pixel pitch.
    @Test func aOneCellLineWithNoRuleAboveItContinuesItsRowWhereRulesPartTheRows() {
        func lines(_ between: [PlacedWord]) -> [WordRow] {
            [
                [word("No.", x: 0, y: 0), word("Name", x: 60, y: 0), word("Date", x: 240, y: 0)],
                [word("1", x: 0, y: 40), word("Haeckel", x: 60, y: 40), word("May", x: 240, y: 40)],
                between,
                [word("2", x: 0, y: 110), word("Cadmus", x: 60, y: 110), word("April", x: 240, y: 110)],
                [word("3", x: 0, y: 150), word("Bromley", x: 60, y: 150), word("June", x: 240, y: 150)],
            ].map { WordRow($0, gapFactor: 0.75) }
        }
        let rules = [25, 100, 140, 175].map { PixelRect(x: -5, y: $0, width: 320, height: 2) }
        let separators: [Double] = [40, 200]
        let wrapped = AlignedTables.cells(rows: lines([word("Confucius", x: 60, y: 72)]), separators: separators, height: 20, along: { x, _ in Double(x) }, rules: rules)
        #expect(wrapped.count == 4)
        #expect(wrapped[1].map { $0?.text } == ["1", "Haeckel Confucius", "May"])
        // A total's label and amount are a row of their own, though the rule above them was lost.
        let total = AlignedTables.cells(
            rows: lines([word("Total", x: 60, y: 72), word("917", x: 240, y: 72)]), separators: separators, height: 20, along: { x, _ in Double(x) }, rules: rules)
        #expect(total.count == 5)
        // Without rules parting the rows, the line stands too far under its row to continue it.
        #expect(AlignedTables.cells(rows: lines([word("Confucius", x: 60, y: 72)]), separators: separators, height: 20, along: { x, _ in Double(x) }).count == 5)
    }

    /// Names of two words in some rows, one in others: the space between "Cadmus" and
    /// "Perspex" (10 pixels) lines up with the one between "Bromly" and "Calicut", and no
    /// row's words cross it; the rows with a word just right of it all leave a word space.
    @Test func aGapEveryRowWithAWordBesideItLeavesNarrowIsNoColumn() throws {
        let lines = [
            [word("No.", x: 0, y: 0), word("Name", x: 60, y: 0), word("Date", x: 300, y: 0)],
            [word("1", x: 0, y: 40), word("Haeck", x: 60, y: 40), word("May", x: 300, y: 40)],
            [word("2", x: 0, y: 80), word("Cadmus", x: 60, y: 80), word("Perspex", x: 142, y: 80), word("April", x: 300, y: 80)],
            [word("3", x: 0, y: 120), word("Bromly", x: 60, y: 120), word("Calicut", x: 142, y: 120), word("June", x: 300, y: 120)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let (table, _) = try #require(AlignedTables.table(rows: lines, along: { x, _ in Double(x) }))
        #expect(table.columns == 3)
        #expect(table.cells.filter { $0.row == 2 }.map(\.text) == ["2", "Cadmus Perspex", "April"])
    }

    /// Phone numbers, two of them longer than the rest: the first reaches across where the
    /// others end (one row in seven may), the last's final group stands a word space past
    /// them. That group alone is right of the gap, and it is no column of its own.
    @Test func aGapTheOneRowBesideItLeavesNarrowIsNoColumn() throws {
        let phones = ["+33497304758", "0280965181", "0256606399", "0443661540", "0320672520", "0279848248", "+335575142"]
        var lines = [[word("No.", x: 0, y: 0), word("Name", x: 60, y: 0), word("Phone", x: 200, y: 0), word("Date", x: 400, y: 0)]]
        for (index, phone) in phones.enumerated() {
            let y = 40 * (index + 1)
            lines.append([word("\(index + 1)", x: 0, y: y), word("Ann", x: 60, y: y), word(phone, x: 200, y: y), word("May", x: 400, y: y)])
        }
        lines[7].insert(word("42", x: 330, y: 280), at: 3)
        let (table, _) = try #require(AlignedTables.table(rows: lines.map { WordRow($0, gapFactor: 0.75) }, along: { x, _ in Double(x) }))
        #expect(table.columns == 4)
        #expect(table.cells.filter { $0.row == 7 }.map(\.text) == ["7", "Ann", "+335575142 42", "May"])
    }

    /// The same form photographed: the rows stand 64 pixels apart around the wrapped line,
    /// more than 2.5 word heights from the row above it, though 18 from the line itself.
    @Test func aWrappedFirstCellDoesNotSplitTheTable() throws {
        let lines = [
            [word("Name", x: 0, y: 0), word("Relation", x: 200, y: 0), word("Born", x: 340, y: 0)],
            [word("Swindon", x: 0, y: 34), word("Child", x: 200, y: 34), word("2008", x: 340, y: 34)],
            [word("Kreisler", x: 0, y: 72)],
            [word("Olcott", x: 0, y: 110), word("Partner", x: 200, y: 110), word("1960", x: 340, y: 110)],
            [word("Illyricum", x: 0, y: 144), word("Child", x: 200, y: 144), word("2009", x: 340, y: 144)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let found = AlignedTables.tables(in: lines, skipping: [])
        #expect(found.count == 1)
        #expect(found.first?.rows == [0, 1, 2, 3, 4])
        // A line reaching across the columns there is no cell's second line: the rows under it
        // are 56 pixels (2.8 word heights) below the last row of cells, and start another table.
        var across = lines
        across[2] = WordRow([word("Date", x: 0, y: 72), word("of", x: 60, y: 72), word("birth", x: 96, y: 72), word("1976", x: 170, y: 72)], gapFactor: 0.75)
        #expect(AlignedTables.tables(in: across, skipping: []).map(\.rows) == [[0, 1], [3, 4]])
    }

    /// A sign-up sheet whose second address's `@` was read as a line of its own, a little
    /// above its row (the glyph reaches below the line): it is no row, and is read in its place.
    @Test func aLoneMarkIsReadInItsRowNotAsARow() throws {
        let sheet = [
            [word("No", x: 0, y: 0), word("Name", x: 100, y: 0), word("Email", x: 300, y: 0)],
            [word("1", x: 0, y: 40), word("Ravel", x: 100, y: 40), word("ravel@example.org", x: 300, y: 40)],
            [word("@", x: 372, y: 66)],
            [word("2", x: 0, y: 80), word("Santee", x: 100, y: 80), word("santee", x: 300, y: 80), word("example.org", x: 386, y: 80)],
            [word("3", x: 0, y: 120), word("Arno", x: 100, y: 120), word("arno@example.org", x: 300, y: 120)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let found = try #require(AlignedTables.tables(in: sheet, skipping: []).first)
        #expect((found.table.rows, found.table.columns) == (4, 3))
        #expect(found.rows == [0, 1, 2, 3, 4])
        #expect(found.table.cells.filter { $0.row == 2 }.map(\.text) == ["2", "Santee", "santee @ example.org"])
        // Rows of text alone are left as they are.
        let plain = Array(sheet[0...1]) + sheet[3...]
        #expect(AlignedTables.foldingMarks(plain).map { $0.words.map(\.text) } == plain.map { $0.words.map(\.text) })
    }

    /// A price list of three columns (Item at x 0–96, Qty at 300, Amount at 500–572) and a
    /// total row whose amount stands 30 pixels right of the others (its cells do not line up
    /// with the last row's) and whose label sits in the first columns.
    @Test func aTotalRowBelowTheTableIsItsLastRow() throws {
        let lines = [
            [word("Item", x: 0, y: 0), word("Qty", x: 300, y: 0), word("Amount", x: 500, y: 0)],
            [word("Fluent", x: 0, y: 40), word("5", x: 300, y: 40), word("€87,75", x: 500, y: 40)],
            [word("Sabotage", x: 0, y: 80), word("2", x: 300, y: 80), word("€24,56", x: 500, y: 80)],
            [word("Total", x: 200, y: 120), word("€112,31", x: 530, y: 120)],
            [word("Terms:", x: 0, y: 200)],
        ].map { WordRow($0, gapFactor: 0.75) }
        #expect(!AlignedTables.aligned(lines[2], lines[3], along: { x, _ in Double(x) }))
        let found = try #require(AlignedTables.tables(in: lines, skipping: []).first)
        #expect((found.table.rows, found.table.columns) == (4, 3))
        #expect(found.rows == [0, 1, 2, 3])
        // The label joins the first column (the gap it stands in holds no column of its
        // own), the amount the last.
        let total = found.table.cells.filter { $0.row == 3 }.map { [$0.column, $0.columnSpan] }
        #expect(total == [[0, 1], [2, 1]])
        #expect(found.table.cells.filter { $0.row == 3 }.map(\.text) == ["Total", "€112,31"])
    }

    /// The same price list set wider: rows 46 pixels apart, 26 of white between them, more than
    /// a word's height (20). The total at the rows' own spacing is the last row; 40 pixels
    /// under the last row, farther than any two rows stand, it is not.
    @Test func aTotalRowAtTheTablesOwnSpacingIsItsLastRow() throws {
        func priceList(totalAt y: Int) -> [WordRow] {
            [
                [word("Item", x: 0, y: 0), word("Qty", x: 300, y: 0), word("Amount", x: 500, y: 0)],
                [word("Fluent", x: 0, y: 46), word("5", x: 300, y: 46), word("€87,75", x: 500, y: 46)],
                [word("Sabotage", x: 0, y: 92), word("2", x: 300, y: 92), word("€24,56", x: 500, y: 92)],
                [word("Total", x: 200, y: y), word("€112,31", x: 530, y: y)],
            ].map { WordRow($0, gapFactor: 0.75) }
        }
        let found = try #require(AlignedTables.tables(in: priceList(totalAt: 138), skipping: []).first)
        #expect((found.table.rows, found.table.columns) == (4, 3))
        #expect(found.table.cells.filter { $0.row == 3 }.map(\.text) == ["Total", "€112,31"])
        let apart = try #require(AlignedTables.tables(in: priceList(totalAt: 152), skipping: []).first)
        #expect((apart.table.rows, apart.rows) == (3, [0, 1, 2]))
    }

    /// A price list whose third item's words stand apart (a gap of 32 pixels that no other
    /// row covers), and a table whose third column holds its heading alone.
    @Test func aColumnOneBodyRowAloneFillsJoinsItsLeftNeighbour() throws {
        let list = [
            [word("No.", x: 0, y: 0), word("Item", x: 100, y: 0), word("Amount", x: 500, y: 0)],
            [word("1", x: 0, y: 40), word("Late", x: 100, y: 40), word("USD 59.55", x: 500, y: 40)],
            [word("2", x: 0, y: 80), word("Ductless", x: 100, y: 80), word("USD 110.58", x: 500, y: 80)],
            [word("3", x: 0, y: 120), word("Forespeak", x: 100, y: 120), word("migrator", x: 240, y: 120), word("USD 119.34", x: 500, y: 120)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let (table, _) = try #require(AlignedTables.table(rows: list, along: { x, _ in Double(x) }))
        #expect((table.rows, table.columns) == (4, 3))
        #expect(table.cells.filter { $0.row == 3 }.map(\.text) == ["3", "Forespeak migrator", "USD 119.34"])
        // A heading over cells that were not read keeps its column.
        let family = [
            [word("Name", x: 0, y: 0), word("Relation", x: 200, y: 0), word("Date", x: 400, y: 0)],
            [word("Torres", x: 0, y: 40), word("Partner", x: 200, y: 40)],
            [word("Heston", x: 0, y: 80), word("Spouse", x: 200, y: 80)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let (kept, _) = try #require(AlignedTables.table(rows: family, along: { x, _ in Double(x) }))
        #expect((kept.rows, kept.columns) == (3, 3))
    }

    /// "Unit price" and "Amount" set 9 pixels apart (under half a 20-pixel word's height) over
    /// numbers 38 pixels apart: the headings' gap is a column's edge all the same.
    @Test func aHeadingAlmostTouchingTheNextKeepsItsOwnColumn() throws {
        let invoice = [
            [word("Item", x: 0, y: 0), word("Qty", x: 300, y: 0), word("Unit price", x: 400, y: 0), word("Amount", x: 529, y: 0)],
            [word("Fluent", x: 0, y: 40), word("5", x: 300, y: 40), word("€87,75", x: 430, y: 40), word("€438,75", x: 540, y: 40)],
            [word("Amnio", x: 0, y: 80), word("2", x: 300, y: 80), word("€24,56", x: 430, y: 80), word("€49,12", x: 552, y: 80)],
        ].map { WordRow($0, gapFactor: 0.75) }
        let (table, _) = try #require(AlignedTables.table(rows: invoice, along: { x, _ in Double(x) }))
        #expect((table.rows, table.columns) == (3, 4))
        #expect(table.cells.filter { $0.row == 0 }.map(\.text) == ["Item", "Qty", "Unit price", "Amount"])
        #expect(table.cells.filter { $0.row == 1 }.map(\.text) == ["Fluent", "5", "€87,75", "€438,75"])
    }

    /// Phone numbers of one format, their digit groups 12 pixels apart (0.6 of a word's
    /// height) in every row: the groups line up, and are still one cell.
    @Test func theDigitGroupsOfPhoneNumbersAreNoColumns() throws {
        func phone(_ groups: [String], y: Int) -> [PlacedWord] {
            groups.enumerated().map { index, group in word(group, x: 200 + 36 * index, y: y) }
        }
        let sheet = [
            [word("Name", x: 0, y: 0), word("Phone", x: 200, y: 0)],
            [word("Plutus", x: 0, y: 40)] + phone(["01", "43", "86", "36", "25"], y: 40),
            [word("Procyon", x: 0, y: 80)] + phone(["04", "53", "83", "84", "32"], y: 80),
            [word("Murphy", x: 0, y: 120)] + phone(["02", "88", "22", "32", "75"], y: 120),
        ].map { WordRow($0, gapFactor: 0.75) }
        let (table, _) = try #require(AlignedTables.table(rows: sheet, along: { x, _ in Double(x) }))
        #expect((table.rows, table.columns) == (4, 2))
        #expect(table.cells.filter { $0.row == 2 }.map(\.text) == ["Procyon", "04 53 83 84 32"])
    }

    /// A page whose words stand 16 pixels apart in the median (0.8 of a word's height: two
    /// lines of prose, and the table's own gaps): a gap parts two cells from 32 pixels on, so
    /// dates whose words stand 14 or 20 pixels apart are one cell each, and the table is whole.
    @Test func onAPageSetWideADateIsOneCellAndTheTableStaysWhole() throws {
        func spaced(_ texts: [String], x: Int, y: Int, gap: Int) -> [PlacedWord] {
            var left = x
            return texts.map { text in
                defer { left += 12 * text.count + gap }
                return word(text, x: left, y: y)
            }
        }
        let prose = spaced(["The", "next", "meeting", "is", "on", "Monday"], x: 0, y: -40, gap: 16)
            + spaced(["in", "the", "hall", "at", "the", "school"], x: 0, y: 0, gap: 16)
        let sheet = [
            [word("Name", x: 0, y: 60), word("Date", x: 240, y: 60), word("Team", x: 480, y: 60)],
            spaced(["Lucan", "Netflix"], x: 0, y: 100, gap: 14) + spaced(["3", "September", "2025"], x: 240, y: 100, gap: 14),
            spaced(["Julius", "Schumann"], x: 0, y: 140, gap: 14) + spaced(["11", "March", "2027"], x: 240, y: 140, gap: 20)
                + [word("Juicer", x: 480, y: 140)],
            spaced(["Mirabeau", "Debra"], x: 0, y: 180, gap: 14) + spaced(["4", "November", "2025"], x: 240, y: 180, gap: 20)
                + [word("Dancer", x: 480, y: 180)],
        ]
        let words = prose + sheet.flatMap { $0 }
        let factor = WordRow.cellGapFactor(words, cellGap: 0.75, wordSpaces: 2)
        #expect(factor == 1.6)
        // At the fixed gap the last two rows' dates fall apart into words, their cells no longer
        // line up with the first row's, and the table is not found whole: its last row is lost.
        let narrow = AlignedTables.tables(in: WordRow.rows(words, gapFactor: 0.75), skipping: [])
        #expect(narrow.map { $0.rows.sorted() } == [[2, 3, 4]])
        let found = try #require(AlignedTables.tables(in: WordRow.rows(words, gapFactor: factor), skipping: []).first)
        #expect((found.table.rows, found.table.columns) == (4, 3))
        #expect(found.table.cells.filter { $0.row == 2 }.map(\.text) == ["Julius Schumann", "11 March 2027", "Juicer"])
    }

    /// A price list of seven rows whose fourth item runs from 0 to 468 pixels, through the gap
    /// the other rows leave between their items (under 96) and their prices (from 600): the
    /// column's edge lies in the blank between that item and its price, not in the gap's middle
    /// (348), which would put its last word in the price's cell.
    @Test func aLongCellReachingIntoTheGapKeepsItsLastWord() throws {
        let long = [
            word("Outbrave", x: 0, y: 160), word("downshift", x: 120, y: 160), word("reversal", x: 252, y: 160),
            word("annotate", x: 372, y: 160), word("£1,234.00", x: 552, y: 160),
        ]
        var lines = [[word("Item", x: 0, y: 0), word("Price", x: 600, y: 0)]]
        for (index, item) in ["Box", "Fidgety", "Yachting", "Isocracy", "Jobholder"].enumerated() {
            lines.append([word(item, x: 0, y: 40 + 40 * index + (index >= 3 ? 40 : 0)), word("£5.00", x: 600, y: 40 + 40 * index + (index >= 3 ? 40 : 0))])
        }
        lines.insert(long, at: 4)
        let rows = lines.map { WordRow($0, gapFactor: 0.75) }
        let (table, _) = try #require(AlignedTables.table(rows: rows, along: { x, _ in Double(x) }))
        #expect((table.rows, table.columns) == (7, 2))
        #expect(table.cells.filter { $0.row == 4 }.map(\.text) == ["Outbrave downshift reversal annotate", "£1,234.00"])
    }
    /// A column of row numbers of which one was read with a full stop ("3."): the stop is a
    /// speck, and goes from the cell's text and its word; a column where most numbers carry
    /// one keeps them.
    @Test func aStrayStopAfterARowNumberGoesWhenTheColumnHasNone() throws {
        func table(_ numbers: [String]) throws -> (Table, [[PlacedWord]]) {
            let lines = numbers.enumerated().map { index, number in
                [word(number, x: 0, y: 40 * index), word("Anna", x: 100, y: 40 * index)]
            }
            return try #require(AlignedTables.table(rows: lines.map { WordRow($0, gapFactor: 0.75) }, along: { x, _ in Double(x) }))
        }
        for (numbers, expected) in [(["1", "2", "3.", "4"], ["1", "2", "3", "4"]), (["1.", "2.", "3.", "4"], ["1.", "2.", "3.", "4"])] {
            let (found, words) = try table(numbers)
            guard case .table(let cleaned, let cleanedWords) = DocumentAnalyzer.numbersWithoutStrayStops(found, words) else {
                Issue.record("not a table")
                continue
            }
            #expect(cleaned.cells.filter { $0.column == 0 }.map(\.text) == expected)
            #expect(cleanedWords.enumerated().filter { cleaned.cells[$0.offset].column == 0 }.map { $0.element.map(\.text) } == expected.map { [$0] })
        }
    }

    /// A rule's stub read at the start of a cell ("—€9,18", "~—-21 December 1997", "_Date")
    /// goes from the cell's text and its first word; a minus sign, a tilde for "about", a lone
    /// dash and a dash inside a cell stay.
    @Test func aRulesStubAtACellsStartGoes() throws {
        let cells = [["_Date", "of", "birth"], ["—€9,18"], ["~—-21", "December"], ["-5"], ["—"], ["Anna", "—Lee"], ["—‘Jul", "1"], ["~5", "kg"]]
        let expected = ["Date of birth", "€9,18", "21 December", "-5", "—", "Anna —Lee", "Jul 1", "~5 kg"]
        // Words a space (8 pixels) apart; the columns 100 pixels apart.
        let lines = cells.enumerated().map { index, cell in
            var x = 200
            return [word("Row", x: 0, y: 40 * index)] + cell.map { text in
                defer { x += 12 * text.count + 8 }
                return word(text, x: x, y: 40 * index)
            }
        }
        let (found, words) = try #require(AlignedTables.table(rows: lines.map { WordRow($0, gapFactor: 0.75) }, along: { x, _ in Double(x) }))
        #expect(found.columns == 2)
        let (stubless, stublessWords) = DocumentAnalyzer.withoutRuleStubs(found, words)
        #expect(stubless.cells.filter { $0.column == 1 }.map(\.text) == expected)
        #expect(stublessWords.enumerated().filter { stubless.cells[$0.offset].column == 1 }.map { $0.element.map(\.text).joined(separator: " ") } == expected)
        // A cell whose first word kept is not its first in reading order keeps its text and words.
        var shuffled = words
        let lee = try #require(found.cells.firstIndex { $0.text == "Anna —Lee" })
        shuffled[lee].reverse()
        let (kept, keptWords) = DocumentAnalyzer.withoutRuleStubs(found, shuffled)
        #expect(kept.cells[lee].text == "Anna —Lee" && keptWords[lee].map(\.text) == ["—Lee", "Anna"])
    }

    /// A column of volumes of which two were read "mi" (an l read as an i) and one "m": the
    /// column's unit is ml, the cells whose unit looks alike take it, the other stays as read.
    /// A column where three cells in four read "mi" reads its "ml" so too; two and two say
    /// nothing.
    @Test func aUnitReadWithALetterThatLooksAlikeTakesItsColumnsUnit() throws {
        func table(_ cells: [[String]]) throws -> (Table, [[PlacedWord]]) {
            let lines = cells.enumerated().map { index, cell in
                var x = 200
                return [word("Item", x: 0, y: 40 * index)] + cell.map { text in
                    defer { x += 12 * text.count + 8 }
                    return word(text, x: x, y: 40 * index)
                }
            }
            return try #require(AlignedTables.table(rows: lines.map { WordRow($0, gapFactor: 0.75) }, along: { x, _ in Double(x) }))
        }
        let cases: [([[String]], [String])] = [
            ([["190", "ml"], ["200", "mi"], ["550", "ml"], ["490mi"], ["300", "ml"], ["450", "ml"], ["130m"]],
             ["190 ml", "200 ml", "550 ml", "490ml", "300 ml", "450 ml", "130m"]),
            ([["4", "kq"], ["12", "kg"], ["9", "kg"]], ["4 kg", "12 kg", "9 kg"]),
            ([["2", "mi"], ["5", "mi"], ["8", "mi"], ["1", "ml"]], ["2 mi", "5 mi", "8 mi", "1 mi"]),
            ([["2", "mi"], ["5", "ml"], ["8", "mi"], ["1", "ml"]], ["2 mi", "5 ml", "8 mi", "1 ml"]),
        ]
        for (cells, expected) in cases {
            let (found, words) = try table(cells)
            guard case .table(let agreed, let agreedWords) = DocumentAnalyzer.unitsAgreed(.table(found, words)) else {
                Issue.record("not a table")
                continue
            }
            let column = agreed.cells.filter { $0.column == 1 }
            #expect(column.map(\.text) == expected)
            #expect(agreedWords.enumerated().filter { agreed.cells[$0.offset].column == 1 }.map { $0.element.map(\.text).joined(separator: " ") } == expected)
        }
    }

    /// A price list whose rows stand 40 pixels apart, with a speck read as a mark of its own
    /// (3 × 2 pixels) left of the table between its third and fourth rows: the speck's own
    /// height is too little for the rows under it to follow on, so the rows are found as two
    /// tables, which are one table of five rows. A piece of a rule as wide as a cell there
    /// is no speck, and the two stay apart.
    @Test func aSpeckBetweenTwoRowsDoesNotSplitTheTable() throws {
        func sheet(between: PixelRect) -> [WordRow] {
            var rows = ["Item", "Fluent", "Sabotage", "Curfew", "Lantern"].enumerated().map { index, name in
                [word(name, x: 0, y: 40 * index), word("\(index)", x: 300, y: 40 * index), word("€\(index)0,00", x: 500, y: 40 * index)]
            }
            rows.insert([PlacedWord(text: "•", box: between, block: 0, paragraph: 0, line: 0)], at: 3)
            return rows.map { WordRow($0, gapFactor: 0.75) }
        }
        let found = AlignedTables.tables(in: sheet(between: PixelRect(x: -40, y: 108, width: 3, height: 2)), skipping: [])
        #expect(found.count == 1)
        let table = try #require(found.first)
        #expect((table.table.rows, table.table.columns) == (5, 3))
        #expect(table.rows == [0, 1, 2, 4, 5])
        #expect(table.table.cells.filter { $0.column == 0 }.map(\.text) == ["Item", "Fluent", "Sabotage", "Curfew", "Lantern"])
        let rule = AlignedTables.tables(in: sheet(between: PixelRect(x: -40, y: 108, width: 120, height: 2)), skipping: [])
        #expect(rule.map(\.rows) == [[0, 1, 2], [4, 5]])
    }
}
