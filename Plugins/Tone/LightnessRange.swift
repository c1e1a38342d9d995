/// The L* a `normalize` stretches to 0…100: its lower and upper percentiles.
struct LightnessRange: Equatable, Sendable {
    let low: Float
    let high: Float
}
