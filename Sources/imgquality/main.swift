import ImageQualityCLI

await IMGQuality.main()
