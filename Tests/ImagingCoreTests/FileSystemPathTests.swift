import Foundation
import ImagingCore
import Testing
import _ImagingTestSupport

@Suite("FileSystemPath")
struct FileSystemPathTests {
    /// Names as a file system may hold them: UTF-8, Latin-1, cut sequences, stray
    /// continuation bytes, and the very scalars that stand for bytes, written out in UTF-8.
    static let names: [[UInt8]] = [
        Array("plain.jpg".utf8),
        Array("café/日本.png".utf8),
        [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67],  // "café.jpg" in Latin-1
        [0xE6, 0x97, 0x2F, 0x80, 0xBF, 0xFF, 0xFE],  // a cut sequence, stray continuations, bytes never in UTF-8
        [0xF4, 0x8F, 0xBE, 0x80, 0x2E, 0xF4, 0x8F, 0xBF, 0xBF],  // U+10FF80 and U+10FFFF as UTF-8
        [0xC0, 0xAF, 0xED, 0xA0, 0x80],  // an overlong "/" and an encoded surrogate
    ]

    @Test(arguments: names) func bytesComeBackExactly(_ name: [UInt8]) {
        let path = FileSystemPath.string(bytes: name)
        #expect(FileSystemPath.bytes(path) == name)
        let text = String(validating: name, as: UTF8.self)
        #expect(FileSystemPath.isUTF8(path) == (text != nil))
        // People see the name as UTF-8 decoding shows it, whatever imgquality holds.
        #expect(FileSystemPath.display(path) == String(decoding: name, as: UTF8.self))
        FileSystemPath.withCString(path) { cString in
            #expect(Array(UnsafeBufferPointer(start: cString, count: strlen(cString))).map { UInt8(bitPattern: $0) } == name)
        }
    }

    @Test func aUTF8NameIsItsOwnString() {
        #expect(FileSystemPath.string(bytes: Array("café/日本.png".utf8)) == "café/日本.png")
        #expect(FileSystemPath.display("café.png") == "café.png")
    }

    @Test func displayShowsEachByteThatIsNotUTF8AsTheReplacementCharacter() {
        let path = FileSystemPath.string(bytes: [0x61, 0xE9, 0xFF, 0x2E, 0x6A, 0x70, 0x67])
        #expect(FileSystemPath.display(path) == "a\u{FFFD}\u{FFFD}.jpg")
        #expect(path.hasSuffix(".jpg"), "the valid part stays text")
    }

    @Test func everyShortStringOfTheBytesThatMakeAndBreakUTF8RoundTrips() {
        let alphabet: [UInt8] = [0x2E, 0x41, 0x7F, 0x80, 0x8F, 0xBE, 0xBF, 0xC2, 0xC3, 0xE2, 0xED, 0xF0, 0xF4, 0xF5, 0xFF]
        var names: [[UInt8]] = [[]]
        for _ in 1...4 {
            names = names.flatMap { name in alphabet.map { name + [$0] } }
            for name in names where FileSystemPath.bytes(FileSystemPath.string(bytes: name)) != name {
                Issue.record("\(name) does not come back")
            }
        }
    }

    @Test func fileTypeFollowsTheNamesBytes() throws {
        let folder = try TemporaryDirectory()
        let path = folder.path + "/" + FileSystemPath.string(bytes: [0x64, 0x69, 0x72, 0xE9])
        #expect(FileSystemPath.fileType(path) == nil)
        let made = FileSystemPath.withCString(path) { mkdir($0, 0o755) }
        #expect(made == 0)
        #expect(FileSystemPath.isDirectory(path))
        #expect(FileSystemPath.fileType(folder.path + "/dir\u{FFFD}") == nil, "the U+FFFD spelling names no file")
    }

    /// Standardizing agrees with Foundation's `standardizedFileURL` on UTF-8 names.
    @Test(arguments: [
        ("/a/./b/../c.jpg", nil, "/a/c.jpg"), ("/a//b/", nil, "/a/b"), ("/../x", nil, "/x"),
        ("img/../p.png", "/data/labels/", "/data/labels/p.png"), ("p.png", "/", "/p.png"), ("./q/r.jpg", "/d/./e/..", "/d/q/r.jpg"),
    ] as [(String, String?, String)])
    func standardizedRemovesDotsAndResolvesAgainstTheDirectory(_ path: String, _ directory: String?, _ expected: String) {
        #expect(FileSystemPath.standardized(path, relativeTo: directory) == expected)
        let url = directory.map { URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: $0, isDirectory: true)) } ?? URL(fileURLWithPath: path)
        #expect(url.standardizedFileURL.path == expected)
    }

    /// Names that are not UTF-8 keep their bytes through standardizing.
    @Test func standardizingKeepsTheBytes() {
        let directory = "/d/" + FileSystemPath.string(bytes: [0x77, 0x64, 0xE9]) + "/."
        let name = FileSystemPath.string(bytes: [0x78, 0xFF, 0x2E, 0x6A, 0x70, 0x67])
        #expect(FileSystemPath.bytes(FileSystemPath.standardized("s/../" + name, relativeTo: directory)) == Array("/d/wd".utf8) + [0xE9, 0x2F, 0x78, 0xFF] + Array(".jpg".utf8))
        #expect(FileSystemPath.standardized("a.jpg").hasPrefix(FileSystemPath.currentDirectory))
    }

    /// A "/" followed by a combining mark is one `Character` with it, and still a slash.
    @Test func slashesAreFoundByScalar() {
        #expect(FileSystemPath.standardized("/d/\u{301}x/../a.jpg") == "/d/a.jpg")
        #expect(FileSystemPath.standardized("\u{301}x/../a.jpg", relativeTo: "/d") == "/d/a.jpg")
        #expect(FileSystemPath.folder(of: "ds/\u{301}labels.csv") == "ds/")
        #expect(FileSystemPath.folder(of: "labels.csv") == nil)
    }
}
