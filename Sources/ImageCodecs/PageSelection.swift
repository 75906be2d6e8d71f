/// Which pages of a multi-page file to read, counted from 1: `all`, or pages and ranges such
/// as `1-3,7` or `2-` (page 2 to the last). Pages are read in ascending order, each once,
/// whatever order the selection names them in; pages past the file's last are skipped.
public struct PageSelection: Sendable, Equatable, CustomStringConvertible {
    /// Inclusive ranges; `upper` nil runs to the last page.
    public struct Range: Sendable, Equatable {
        public var lower: Int
        public var upper: Int?
    }

    public var ranges: [Range]

    /// Every page.
    public static let all = PageSelection(ranges: [Range(lower: 1, upper: nil)])

    /// One page.
    public static func page(_ number: Int) -> PageSelection { PageSelection(ranges: [Range(lower: number, upper: number)]) }

    public init(ranges: [Range]) {
        precondition(!ranges.isEmpty && ranges.allSatisfy { $0.lower >= 1 && ($0.upper ?? .max) >= $0.lower }, "invalid page ranges")
        self.ranges = ranges
    }

    /// Parses `all`, or comma-separated pages (`7`) and ranges (`1-3`, `2-`).
    /// - Returns: nil when `text` is neither, with `problem` saying why.
    public init?(parsing text: String, problem: inout String) {
        if text == "all" {
            self = .all
            return
        }
        var ranges: [Range] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = part.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            guard let lower = Int(bounds[0]), lower >= 1 else {
                problem = "'\(part)' is not a page number from 1 or a range such as 1-3 or 2-"
                return nil
            }
            var upper: Int? = lower
            if bounds.count == 2 {
                if bounds[1].isEmpty {
                    upper = nil
                } else {
                    guard let last = Int(bounds[1]), last >= lower else {
                        problem = "'\(part)' is not a range from a page to the same or a later one"
                        return nil
                    }
                    upper = last
                }
            }
            ranges.append(Range(lower: lower, upper: upper))
        }
        self.init(ranges: ranges)
    }

    /// The first page selected.
    public var first: Int { ranges.map(\.lower).min()! }

    /// The next selected page after `page` in a file of `count` pages, or nil.
    public func page(after page: Int, count: Int) -> Int? {
        ranges.compactMap { range -> Int? in
            let next = max(range.lower, page + 1)
            return next <= min(range.upper ?? .max, count) ? next : nil
        }.min()
    }

    public var description: String {
        if self == .all { return "all" }
        return ranges.map { range in
            guard let upper = range.upper else { return "\(range.lower)-" }
            return upper == range.lower ? "\(upper)" : "\(range.lower)-\(upper)"
        }.joined(separator: ",")
    }
}
