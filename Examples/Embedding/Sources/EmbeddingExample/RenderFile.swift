import TimbreEngine
import TimbreFile

/// Renders a file through a preset as `timbre render` does: libsndfile in and out, the output
/// written to a temporary file and renamed, its loudness measured.
func renderFile(_ inputPath: String, to outputPath: String, through preset: Preset) throws -> RenderSummary {
    var request = RenderRequest(inputPath: inputPath, outputPath: outputPath, preset: preset)
    request.meter = true
    let summary = try OfflineRenderer.render(request)
    print("\(summary.frames) frames written, integrated \(summary.loudness?.integratedLUFS ?? -.infinity) LUFS")
    return summary
}
