/// What a vector environment does when one of its episodes ends (Gymnasium 1.x's `AutoresetMode`), for
/// every game: 2048's `VectorEnvironment` and every game's `VectorGame` alike.
public enum AutoresetMode: String, Hashable, Sendable, CaseIterable {
    /// Gymnasium's default. The step that ends an episode reports the final
    /// observation; the *next* step ignores that environment's action, resets
    /// it, and reports the new first observation with reward 0 and both flags false.
    case nextStep = "next_step"
    /// The step that ends an episode resets the environment at once: it reports
    /// the new first observation, and keeps the final one aside (`finalObservations`).
    case sameStep = "same_step"
    /// No automatic reset: reset a finished environment by its index; a step that
    /// includes a finished environment throws.
    case disabled
}
