import Foundation
import ImageKernels
import ImagingCore

/// A table drawn as a grid: one connected piece of ruling lines whose enclosed paper
/// regions are the cells. Found this way a table survives the tilt, keystone and bent paper
/// of a phone photo, and a cell spanning rows or columns is simply a larger enclosed region.
struct GridTable {
    /// The component of the ruling lines (its label in `PageInk.labels`).
    var component: Int
    /// Each cell: its first row and column, its spans, and its working-scale box; `cellLabels`
    /// holds each cell's index + 1.
    var cells: [(row: Int, column: Int, rowSpan: Int, columnSpan: Int, box: PixelRect)]
    var rows: Int
    var columns: Int
    /// Working-scale box of the grid.
    var box: PixelRect
    /// For each working pixel inside `box`, the index + 1 of the cell it lies in (0 elsewhere), row-major within `box`.
    var cellLabels: [Int32]

    /// The cell index holding working pixel (x, y), if any.
    func cell(atX x: Int, y: Int) -> Int? {
        guard x >= box.x, y >= box.y, x < box.x + box.width, y < box.y + box.height else { return nil }
        let label = cellLabels[(y - box.y) * box.width + (x - box.x)]
        return label > 0 ? Int(label) - 1 : nil
    }

    /// Grids need at least this many cells and two rows and two columns.
    static let minimumCells = 4

    /// The grids on the page.
    static func find(in ink: PageInk) -> [GridTable] {
        let character = max(ink.characterHeight, 6)
        var tables: [GridTable] = []
        for (index, component) in ink.components.enumerated() {
            // Large enough to hold a few rows of text, and mostly paper inside.
            guard Double(component.width) >= 6 * character, Double(component.height) >= 2.5 * character,
                Double(component.area) <= 0.25 * Double(component.width * component.height)
            else { continue }
            if let table = grid(component: index + 1, ink: ink, character: character) { tables.append(table) }
        }
        return tables
    }

    /// The enclosed regions of one component, and the rows and columns their edges define.
    static func grid(component label: Int, ink: PageInk, character: Double) -> GridTable? {
        let component = ink.components[label - 1]
        let box = component.box
        let w = box.width, h = box.height
        // The paper (every pixel not of this component) in 4-connected regions inside the box;
        // regions touching the box's edge are outside the grid.
        var paper = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            let row = (box.y + y) * ink.width + box.x
            for x in 0..<w { paper[y * w + x] = ink.labels[row + x] != Int32(label) }
        }
        let (region, regions) = ConnectedComponents.label(paper, width: w, height: h, connectivity: .four)
        func touchesEdge(_ r: ConnectedComponents.Component) -> Bool { r.minX == 0 || r.minY == 0 || r.maxX == w - 1 || r.maxY == h - 1 }
        // Cells: enclosed regions at least a character high and wide.
        let minimumSide = Int((0.8 * character).rounded())
        var cellOf = [Int32](repeating: 0, count: regions.count + 1)
        var cellRegions: [Int] = []
        for (index, r) in regions.enumerated() where !touchesEdge(r) && r.maxX - r.minX + 1 >= minimumSide && r.maxY - r.minY + 1 >= minimumSide {
            cellRegions.append(index)
            cellOf[index + 1] = Int32(cellRegions.count)
        }
        guard cellRegions.count >= minimumCells else { return nil }
        // The cells must fill most of the grid: a drawing with a few closed loops is not a table.
        let cellArea = cellRegions.reduce(0) { $0 + regions[$1].area }
        guard Double(cellArea) >= 0.6 * Double(w * h) else { return nil }

        // Rows and columns: the cells' top and bottom edges (left and right), measured across
        // the grid's own tilt, cluster at the ruling lines. A gap between edge positions of
        // more than a third of the smallest cell side (or half a character) separates two lines.
        let (horizontalAngle, verticalAngle) = tilt(of: label, in: box, ink: ink)
        let (cosH, sinH, cosV, sinV) = (cos(horizontalAngle), sin(horizontalAngle), cos(verticalAngle), sin(verticalAngle))
        var extent = [(top: Double, bottom: Double, left: Double, right: Double)](
            repeating: (.infinity, -.infinity, .infinity, -.infinity), count: cellRegions.count)
        for y in 0..<h {
            for x in 0..<w {
                let cell = Int(cellOf[Int(region[y * w + x])])
                guard cell > 0 else { continue }
                let across = Double(y) * cosH - Double(x) * sinH, along = Double(x) * cosV + Double(y) * sinV
                extent[cell - 1].top = min(extent[cell - 1].top, across)
                extent[cell - 1].bottom = max(extent[cell - 1].bottom, across)
                extent[cell - 1].left = min(extent[cell - 1].left, along)
                extent[cell - 1].right = max(extent[cell - 1].right, along)
            }
        }
        let heights = extent.map { $0.bottom - $0.top }.sorted()
        let widths = extent.map { $0.right - $0.left }.sorted()
        let rowTolerance = max(0.5 * character, 0.35 * heights[0])
        let columnTolerance = max(0.5 * character, 0.35 * widths[0])
        let horizontal = lines(extent.flatMap { [$0.top, $0.bottom] }, tolerance: rowTolerance)
        let vertical = lines(extent.flatMap { [$0.left, $0.right] }, tolerance: columnTolerance)
        guard horizontal.count >= 3, vertical.count >= 3 else { return nil }
        func line(_ value: Double, in lines: [Double]) -> Int {
            lines.indices.min { abs(lines[$0] - value) < abs(lines[$1] - value) }!
        }
        var cells: [(row: Int, column: Int, rowSpan: Int, columnSpan: Int, box: PixelRect)] = []
        for (cell, index) in cellRegions.enumerated() {
            let r = regions[index], e = extent[cell]
            let top = line(e.top, in: horizontal), bottom = line(e.bottom, in: horizontal)
            let left = line(e.left, in: vertical), right = line(e.right, in: vertical)
            guard bottom > top, right > left else { return nil }
            cells.append((top, left, bottom - top, right - left,
                PixelRect(x: box.x + r.minX, y: box.y + r.minY, width: r.maxX - r.minX + 1, height: r.maxY - r.minY + 1)))
        }
        let rows = horizontal.count - 1, columns = vertical.count - 1
        // Two cells claiming the same place mean the edges were misread: not a grid we can trust.
        var taken = Set<Int>()
        for cell in cells {
            for row in cell.row..<(cell.row + cell.rowSpan) {
                for column in cell.column..<(cell.column + cell.columnSpan) {
                    guard taken.insert(row * columns + column).inserted else { return nil }
                }
            }
        }
        let cellLabels = region.map { cellOf[Int($0)] }
        return GridTable(component: label, cells: cells, rows: rows, columns: columns, box: box, cellLabels: cellLabels)
    }

    /// The angles (radians, within ±12°) at which the component's pixels line up best in rows
    /// (its horizontal lines) and in columns (its vertical ones): the sharpest projection.
    static func tilt(of label: Int, in box: PixelRect, ink: PageInk) -> (horizontal: Double, vertical: Double) {
        var points: [(x: Double, y: Double)] = []
        for y in box.y..<(box.y + box.height) {
            for x in box.x..<(box.x + box.width) where ink.labels[y * ink.width + x] == Int32(label) {
                points.append((Double(x - box.x), Double(y - box.y)))
            }
        }
        // At most about 60 000 points: every n-th.
        let step = max(1, points.count / 60_000)
        let sample = stride(from: 0, to: points.count, by: step).map { points[$0] }
        func sharpness(_ angle: Double, horizontal: Bool) -> Double {
            let (c, s) = (cos(angle), sin(angle))
            let span = box.width + box.height + 2
            var histogram = [Double](repeating: 0, count: 2 * span)
            for p in sample {
                let position = horizontal ? p.y * c - p.x * s : p.x * c + p.y * s
                histogram[min(2 * span - 1, max(0, Int(position.rounded()) + span))] += 1
            }
            return histogram.reduce(0) { $0 + $1 * $1 }
        }
        let angles = stride(from: -12.0, through: 12.0, by: 0.25).map { $0 * .pi / 180 }
        let horizontal = angles.max { sharpness($0, horizontal: true) < sharpness($1, horizontal: true) } ?? 0
        let vertical = angles.max { sharpness($0, horizontal: false) < sharpness($1, horizontal: false) } ?? 0
        return (horizontal, vertical)
    }

    /// Positions grouped where consecutive sorted values are within `tolerance`; each group's mean.
    static func lines(_ values: [Double], tolerance: Double) -> [Double] {
        let sorted = values.sorted()
        var groups: [[Double]] = []
        for value in sorted {
            if let last = groups.last?.last, value - last <= tolerance {
                groups[groups.count - 1].append(value)
            } else {
                groups.append([value])
            }
        }
        return groups.map { $0.reduce(0, +) / Double($0.count) }
    }
}
