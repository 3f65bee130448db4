import Game2048Solver

/// The progress of a pass over a solved board's layers and the backward pass that values them (`g2048 solve`,
/// `g2048 eval --exact`): the forward pass on a line of its own, as `forward` counts it, then the valuing pass,
/// layer by layer.
final class LayeredProgress {
    private let forward: Progress
    /// What the forward pass has done, and its detail, from a step.
    private let forwardDone: (OptimalSolver.Progress) -> (done: Int, detail: String)
    private var valuing: Progress? = nil

    init(forward: Progress, done: @escaping (OptimalSolver.Progress) -> (done: Int, detail: String)) {
        self.forward = forward
        forwardDone = done
    }

    /// The progress of the solver's passes over a board of about `estimate` afterstates (`g2048 solve`, and the
    /// sweep of `g2048 train`): the afterstates enumerated against the estimate, then the layers valued.
    static func solving(estimate: Double) -> LayeredProgress {
        LayeredProgress(forward: Progress(total: Int(estimate), unit: "afterstates")) { ($0.afterstates, "enumerating, age \(2 * $0.layers)") }
    }

    func update(_ step: OptimalSolver.Progress) {
        switch step.pass {
        case .enumerate:
            let (done, detail) = forwardDone(step)
            forward.update(done, detail: detail)
        case .value:
            if valuing == nil {
                forward.finish()
                valuing = Progress(total: step.totalLayers, unit: "layers")
            }
            valuing?.update(step.layers, detail: "valuing \(step.afterstates) afterstates")
        }
    }

    /// Ends the line in progress.
    func finish() {
        if let valuing { valuing.finish() } else { forward.finish() }
    }
}
