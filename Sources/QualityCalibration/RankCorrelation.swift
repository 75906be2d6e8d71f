/// Pearson's correlation coefficient, or nil when either side is constant.
public func pearson(_ x: [Double], _ y: [Double]) -> Double? {
    precondition(x.count == y.count)
    let n = Double(x.count)
    guard n > 1 else { return nil }
    let mx = x.reduce(0, +) / n, my = y.reduce(0, +) / n
    var sxy = 0.0, sxx = 0.0, syy = 0.0
    for (a, b) in zip(x, y) {
        sxy += (a - mx) * (b - my)
        sxx += (a - mx) * (a - mx)
        syy += (b - my) * (b - my)
    }
    guard sxx > 0, syy > 0 else { return nil }
    return sxy / (sxx * syy).squareRoot()
}

/// Ranks from 1, ties sharing the mean of their ranks.
public func ranks(_ values: [Double]) -> [Double] {
    let order = values.indices.sorted { values[$0] < values[$1] }
    var result = [Double](repeating: 0, count: values.count)
    var i = 0
    while i < order.count {
        var j = i
        while j + 1 < order.count && values[order[j + 1]] == values[order[i]] { j += 1 }
        let rank = Double(i + j) / 2 + 1
        for k in i...j { result[order[k]] = rank }
        i = j + 1
    }
    return result
}

/// Spearman's rank correlation (Pearson's on tie-averaged ranks), or nil when either side is constant.
public func spearman(_ x: [Double], _ y: [Double]) -> Double? {
    pearson(ranks(x), ranks(y))
}
