import ImageQualityCLI

await IMGQuality.runFromCommandLine()
