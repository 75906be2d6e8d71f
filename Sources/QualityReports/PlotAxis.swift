import Foundation

/// One axis of an `SVGPlot`: its range, linear or logarithmic, and the round values it labels.
package struct PlotAxis: Equatable {
    package enum Scale: Equatable { case linear, logarithmic }

    package var range: ClosedRange<Double>
    package var scale: Scale

    /// A linear axis over `range` (widened to one unit when it is a single value).
    package static func linear(_ range: ClosedRange<Double>) -> PlotAxis {
        PlotAxis(range: range.lowerBound < range.upperBound ? range : range.lowerBound...(range.lowerBound + 1), scale: .linear)
    }

    /// A logarithmic axis over `range`, which must be positive.
    package static func logarithmic(_ range: ClosedRange<Double>) -> PlotAxis {
        precondition(range.lowerBound > 0, "a logarithmic axis needs positive values")
        return PlotAxis(range: range.lowerBound < range.upperBound ? range : range.lowerBound...(range.lowerBound * 10), scale: .logarithmic)
    }

    /// How many times the largest value must exceed the smallest for a logarithmic axis:
    /// past it, a linear axis squeezes the lower values (where blur thresholds sit) into a
    /// few percent of the width.
    package static let logarithmicSpan = 20.0

    /// An axis for `values`: logarithmic when all are positive and they span more than
    /// `logarithmicSpan`, linear otherwise; either way widened to round values at both ends.
    /// - Parameters:
    ///   - integers: whether the values are counts (ticks at whole numbers only).
    ///   - allowingLogarithmic: false for a quantity read on a linear scale whatever its
    ///     values, such as an accuracy from 0 to 1.
    package static func fitting(_ values: [Double], integers: Bool = false, allowingLogarithmic: Bool = true) -> PlotAxis {
        let finite = values.filter(\.isFinite)
        guard let low = finite.min(), let high = finite.max() else { return .linear(0...1) }
        if allowingLogarithmic, low > 0, high / low > logarithmicSpan {
            let sequence = roundSequence(from: low, to: high)
            return .logarithmic((sequence.last { $0 <= low } ?? low)...(sequence.first { $0 >= high } ?? high))
        }
        let step = linearStep(for: high - low, integers: integers)
        return .linear(step.multiple((low / step.value).rounded(.down))...step.multiple((high / step.value).rounded(.up)))
    }

    /// Where `value` falls along the axis, 0 at the lower end and 1 at the upper.
    package func fraction(_ value: Double) -> Double {
        switch scale {
        case .linear:
            return (value - range.lowerBound) / (range.upperBound - range.lowerBound)
        case .logarithmic:
            // Values at or under zero cannot be placed: they sit at the lower end.
            let clamped = max(value, range.lowerBound * 1e-3)
            return log10(clamped / range.lowerBound) / log10(range.upperBound / range.lowerBound)
        }
    }

    /// The value at `fraction` of the axis (the inverse of `fraction(_:)`).
    package func value(at fraction: Double) -> Double {
        switch scale {
        case .linear: range.lowerBound + fraction * (range.upperBound - range.lowerBound)
        case .logarithmic: range.lowerBound * pow(range.upperBound / range.lowerBound, fraction)
        }
    }

    /// Labelled values: multiples of 1, 2 or 5 × 10ᵏ, about five on a linear axis; on a
    /// logarithmic one 1, 2 and 5 × 10ᵏ, or only the powers of ten when it spans more than
    /// four decades.
    package func ticks(integers: Bool = false) -> [Double] {
        let tolerance = 1e-9 * max(abs(range.lowerBound), abs(range.upperBound), 1e-300)
        switch scale {
        case .linear:
            let step = Self.linearStep(for: range.upperBound - range.lowerBound, integers: integers)
            let first = (range.lowerBound / step.value - 1e-9).rounded(.up)
            let last = (range.upperBound / step.value + 1e-9).rounded(.down)
            guard first <= last else { return [] }
            return stride(from: first, through: last, by: 1).map(step.multiple)
        case .logarithmic:
            let decades = log10(range.upperBound / range.lowerBound)
            let sequence = Self.roundSequence(from: range.lowerBound, to: range.upperBound, mantissas: decades > 4 ? [1] : [1, 2, 5])
            return sequence.filter { $0 >= range.lowerBound - tolerance && $0 <= range.upperBound + tolerance }
        }
    }

    /// A round step: `mantissa` × 10^`exponent`, with `mantissa` 1, 2 or 5.
    package struct Step: Equatable {
        var mantissa: Double
        var exponent: Int

        var value: Double { multiple(1) }

        /// `count` steps, rounded once: 3 × 0.2 is 0.6 here, where `3 * 0.2` gives 0.6000000000000001.
        func multiple(_ count: Double) -> Double {
            let product = count * mantissa
            // A negative power of ten is not exact in binary; dividing by the exact positive one rounds once.
            let result = exponent >= 0 ? product * pow(10, Double(exponent)) : product / pow(10, Double(-exponent))
            return result == 0 ? 0 : result  // no "-0" label
        }
    }

    /// The step of about five ticks over `span`: 1, 2 or 5 × 10ᵏ (at least 1 for counts).
    package static func linearStep(for span: Double, integers: Bool = false) -> Step {
        guard span > 0, span.isFinite else { return Step(mantissa: 1, exponent: 0) }
        let raw = span / 5
        var exponent = Int((log10(raw)).rounded(.down))
        let scaled = raw / pow(10, Double(exponent))
        var mantissa = [1.0, 2, 5].first { $0 >= scaled * (1 - 1e-9) } ?? 10
        if mantissa == 10 {
            mantissa = 1
            exponent += 1
        }
        return integers && exponent < 0 ? Step(mantissa: 1, exponent: 0) : Step(mantissa: mantissa, exponent: exponent)
    }

    /// The values m × 10ᵏ (m in `mantissas`) from the one at or under `low` to the one at or over `high`.
    package static func roundSequence(from low: Double, to high: Double, mantissas: [Double] = [1, 2, 5]) -> [Double] {
        var values: [Double] = []
        let firstDecade = Int((log10(low)).rounded(.down)) - 1, lastDecade = Int((log10(high)).rounded(.up))
        for decade in firstDecade...lastDecade {
            for mantissa in mantissas { values.append(Step(mantissa: mantissa, exponent: decade).value) }
        }
        let below = values.last { $0 <= low * (1 + 1e-12) } ?? values[0]
        let above = values.first { $0 >= high * (1 - 1e-12) } ?? values[values.count - 1]
        return values.filter { $0 >= below && $0 <= above }
    }

    /// `count` bins over the axis, equal in width on its scale (so geometric on a logarithmic one).
    package func bins(_ count: Int) -> [(lower: Double, upper: Double)] {
        (0..<count).map { (value(at: Double($0) / Double(count)), value(at: Double($0 + 1) / Double(count))) }
    }

    /// A tick's text: the shortest that reads back as the round value ("0.2", "5", "1e+06").
    package static func label(_ value: Double) -> String {
        String(format: "%g", value)
    }
}
