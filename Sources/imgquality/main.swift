import ImageQualityCLI

IMGQuality.main()
