import ImageQualityCLI

// Top-level code before the first `await` runs on the main thread.
IMGQuality.endInterruptsBetweenRecords()
await IMGQuality.runFromCommandLine()
