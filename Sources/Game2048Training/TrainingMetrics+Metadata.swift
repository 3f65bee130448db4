import Game2048Network

extension TrainingMetrics {
    /// The metadata to save: `base` with these counters and `elapsedSeconds` of training in all, and, with
    /// `suggestingDowngrade`, the search's downgrading tile chosen from the last games (`TileDowngrade.suggestedLimit`),
    /// once they fill the window (a tile below `ceiling`, ``TrainingSetup/downgradeCeiling``); until then a resumed
    /// run keeps the file's.
    package func metadata(
        base: TrainingMetadata, suggestingDowngrade: Bool, below ceiling: UInt8 = TileDowngrade.defaultLimit, elapsedSeconds: Double
    ) -> TrainingMetadata {
        var metadata = base
        let window = window
        (metadata.games, metadata.moves, metadata.elapsedSeconds) = (games, moves, elapsedSeconds)
        if !suggestingDowngrade {
            metadata.downgradeLimit = nil
        } else if window.games >= windowSize {
            metadata.downgradeLimit = TileDowngrade.suggestedLimit(
                initialValue: base.initialValue, window: window, windowSize: windowSize, below: ceiling)
        }
        return metadata
    }
}
