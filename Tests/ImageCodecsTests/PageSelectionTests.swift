import Testing

@testable import ImageCodecs

@Suite("Page selection")
struct PageSelectionTests {
    func parse(_ text: String) -> PageSelection? {
        var problem = ""
        return PageSelection(parsing: text, problem: &problem)
    }

    /// The pages a selection reads from a file of `count` pages, in the order they are read.
    func pages(_ selection: PageSelection, count: Int) -> [Int] {
        guard selection.first <= count else { return [] }
        var read = [selection.first]
        while let next = selection.page(after: read.last!, count: count) { read.append(next) }
        return read
    }

    @Test(arguments: [
        ("all", 5, [1, 2, 3, 4, 5]), ("1-3,7", 9, [1, 2, 3, 7]), ("1-3,7", 5, [1, 2, 3]), ("2-", 4, [2, 3, 4]),
        ("7,3,3,1-2", 8, [1, 2, 3, 7]), ("4", 3, []), ("2-3,3-5", 6, [2, 3, 4, 5]),
    ])
    func pagesAreReadInAscendingOrderEachOnce(_ text: String, _ count: Int, _ expected: [Int]) throws {
        let selection = try #require(parse(text))
        #expect(pages(selection, count: count) == expected)
    }

    @Test func theSelectionPrintsAsItParses() throws {
        #expect(try #require(parse("1-3,7,9-")).description == "1-3,7,9-")
        #expect(PageSelection.all.description == "all" && PageSelection.page(4).description == "4")
        #expect(parse("1-") == PageSelection.all)
    }

    @Test(arguments: [
        ("0", "'0' is not a page number from 1 or a range such as 1-3 or 2-"),
        ("-3", "'-3' is not a page number from 1 or a range such as 1-3 or 2-"),
        ("3-2", "'3-2' is not a range from a page to the same or a later one"),
        ("1,x", "'x' is not a page number from 1 or a range such as 1-3 or 2-"),
        ("", "'' is not a page number from 1 or a range such as 1-3 or 2-"),
    ])
    func whatIsNotASelectionSaysWhy(_ text: String, _ message: String) {
        var problem = ""
        #expect(PageSelection(parsing: text, problem: &problem) == nil)
        #expect(problem == message)
    }
}
