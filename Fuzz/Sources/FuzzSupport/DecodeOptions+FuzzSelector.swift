import ImageCodecs

extension DecodeOptions {
    /// The options a fuzz input's last byte selects, with `FuzzLimits.decode`:
    /// bit 0 RGB as well as luma; bits 1–2 the scale (full, 1/2, 1/4, 1/8; only JPEG honours it);
    /// bit 3 strict; bit 4 pixels left in stored orientation; bit 5 the second page, only when
    /// `allowsPages` (TIFF and PDF: other formats refuse a second page before decoding anything).
    public init(fuzzSelector selector: UInt8, allowsPages: Bool) {
        let scales: [DecodeScale] = [.full, .reduced(denominator: 2), .reduced(denominator: 4), .reduced(denominator: 8)]
        self.init(
            limits: FuzzLimits.decode,
            wantsRGB: selector & 1 != 0,
            scale: scales[Int(selector >> 1) & 3],
            pageIndex: allowsPages && selector & 0x20 != 0 ? 1 : 0,
            appliesOrientation: selector & 0x10 == 0,
            isStrict: selector & 8 != 0)
    }
}
