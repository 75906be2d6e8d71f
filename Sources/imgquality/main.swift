import ImageQualityCLI

// Top-level code before the first `await` runs on the main thread.
IMGQuality.reuseLargeAllocations()
IMGQuality.endInterruptsBetweenRecords()
IMGQuality.requireModels()
IMGQuality.registerPlugInDecoders()
await IMGQuality.runFromCommandLine()
