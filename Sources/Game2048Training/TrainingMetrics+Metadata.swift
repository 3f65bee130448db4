import Game2048Network

extension TrainingMetrics {
    /// The metadata to save: `base` with these counters and `elapsedSeconds` of training in all, and, with a
    /// `downgradeCeiling` (``TrainingSetup/downgradeSuggestionCeiling``), the search's downgrading tile chosen below
    /// it from the last games (`TileDowngrade.suggestedLimit`) once they fill the window; until then a resumed run
    /// keeps the file's. Without one, no tile is recorded.
    package func metadata(base: TrainingMetadata, downgradeCeiling: UInt8?, elapsedSeconds: Double) -> TrainingMetadata {
        var metadata = base
        let window = window
        (metadata.games, metadata.moves, metadata.elapsedSeconds) = (games, moves, elapsedSeconds)
        guard let ceiling = downgradeCeiling else {
            metadata.downgradeLimit = nil
            return metadata
        }
        if window.games >= windowSize {
            metadata.downgradeLimit = TileDowngrade.suggestedLimit(
                initialValue: base.initialValue, window: window, windowSize: windowSize, below: ceiling)
        }
        return metadata
    }
}
