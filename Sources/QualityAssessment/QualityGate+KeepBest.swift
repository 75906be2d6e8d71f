import QualityGating

extension QualityGate {
    /// Decides a whole batch by rank instead of by absolute thresholds: the assessed images
    /// whose `gate.score` is among the best `fraction` of the batch pass, every other fails
    /// with the reason `score` and the batch's cutoff as its threshold. Images tied with the
    /// cutoff all pass, so a little more than `fraction` may. Failed inputs never pass.
    ///
    /// For users whose thresholds are relative to their data ("keep the best 10%"); it needs
    /// the whole batch before it decides.
    public static func keepBest(_ fraction: Double, of assessments: inout [Assessment]) {
        let scores = assessments.compactMap { $0.image?.decision.score }.sorted(by: >)
        let kept = min(scores.count, Int((fraction * Double(scores.count)).rounded(.up)))
        let cutoff = kept > 0 ? scores[kept - 1] : .infinity
        let words = "not in the best \(GateFailure.short(fraction * 100))%"
        for index in assessments.indices {
            guard case .assessed(var image) = assessments[index].outcome else { continue }
            let score = image.decision.score
            image.decision.pass = score >= cutoff
            image.decision.failures =
                image.decision.pass ? [] : [GateFailure(reason: .score, measured: score, threshold: cutoff, words: words)]
            assessments[index].outcome = .assessed(image)
        }
    }
}
