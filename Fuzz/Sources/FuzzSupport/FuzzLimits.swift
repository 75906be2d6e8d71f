import ImagingCore

/// The limits every fuzz target decodes with.
public enum FuzzLimits {
    /// 4 megapixels (2²²) instead of the product's 256 MP: a 30-byte header may legitimately
    /// claim 256 MP, and decoding that (a 256 MiB plane, more for RGB, 16-bit or libtiff's RGBA
    /// raster, all under ASan) would be reported as an out-of-memory crash or make each run take
    /// seconds. At 16 MP one 16-bit RGBA PNG peaked at 0.6 GiB under ASan, and the PNG target
    /// passed libFuzzer's 2 GiB limit in CI once the decoder's kept buffers, ASan's quarantine and
    /// such peaks added up. Claims above 4 MP are refused before allocation, so the refusal path
    /// is still fuzzed. File size and progressive-scan limits keep the product's defaults.
    public static let decode = DecodeLimits(maxPixels: 1 << 22)
}
